#pragma once
// The orchestrator's live API: HTTP/1.1 (Boost.Beast) on the run's event loop,
// read-only, loopback by default. docs/live-api.md documents every endpoint:
//   GET /api/v1/state     the live state as JSON
//   GET /api/v1/frames    recent frame intervals of one session (?session=N&since=SEQ&max=M)
//   GET /api/v1/history   run-wide figures once a second since the start (?since=SECONDS)
//   GET /api/v1/events    server-sent events (step-begin, step-verdict, session-end, run-end)
//   GET /metrics          Prometheus text exposition format
// Requests are size-limited (8 KiB of headers, no body), time-limited (10 s to send
// a request), GET/HEAD only; nothing a request says starts a process or names a file.
#include <cstdint>
#include <memory>
#include <string>

#include "orchestrator/live_observer.h"

namespace seatmark::orchestrator {

constexpr const char* default_listen = "127.0.0.1:7878";

struct ListenAddress {
    std::string host;     // an IP address literal ("localhost" reads as 127.0.0.1)
    uint16_t port = 0;    // 0: any free port
    bool loopback = true;
};

// Parses HOST:PORT ("127.0.0.1:7878", "[::1]:0", "localhost:7878", "0.0.0.0:7878").
// Throws InputError naming what was expected.
ListenAddress parse_listen(const std::string& text);

struct LiveApiOptions {
    std::string listen = default_listen;
    std::string token;          // when set, every request needs "Authorization: Bearer TOKEN"
    bool port_fallback = true;  // a taken port: try the next few, then any free one
    double request_timeout_s = 10;  // to send one whole request (slowloris) or take one reply
    std::string plan_json;          // plan_json(plan) as text, served in the state ("" : null)
};

class LiveApi : public LiveObserver {
public:
    // Binds at once, so a bad address stops the command before the run starts
    // (InputError): a non-loopback address without a token is refused.
    explicit LiveApi(const LiveApiOptions& o);
    ~LiveApi() override;
    LiveApi(const LiveApi&) = delete;
    LiveApi& operator=(const LiveApi&) = delete;

    std::string url() const;    // http://HOST:PORT
    uint16_t port() const;
    // Why the port differs from the one asked for ("" when it does not).
    const std::string& note() const;

    void started(boost::asio::io_context& io, LiveSource& source) override;
    void event(const std::string& kind, const std::string& json) override;
    // Sends what subscribers still have queued, then closes every connection:
    // the run's event loop stops right after, and with it the API.
    void finished() override;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace seatmark::orchestrator
