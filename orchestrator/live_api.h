#pragma once
// The orchestrator's live API: HTTP/1.1 (Boost.Beast) on the run's event loop,
// read-only, loopback by default. docs/live-api.md documents every endpoint:
//   GET /api/v1/state     the live state as JSON
//   GET /api/v1/frames    recent frame intervals of one session (?session=N&since=SEQ&max=M)
//   GET /api/v1/history   run-wide figures once a second since the start (?since=SECONDS)
//   GET /api/v1/events    server-sent events (step-begin, step-verdict, session-end, run-end)
//   GET /metrics          Prometheus text exposition format
// This wires the parts: listen_address.h (--listen), live_http.h (connections and
// their limits), live_routes.h (the answers), live_events.h (the event stream).
#include <cstdint>
#include <memory>
#include <string>

#include "orchestrator/listen_address.h"
#include "orchestrator/live_observer.h"

namespace seatmark::orchestrator {

struct LiveApiOptions {
    std::string listen = default_listen;
    std::string token;          // when set, every request needs "Authorization: Bearer TOKEN"
    bool port_fallback = true;  // a taken port: try the next few, then any free one
    double request_timeout_s = 10;  // to take one reply, and between requests on a kept-alive connection
    std::string plan_json;          // core::plan_json(plan) as text, served in the state ("" : null)
    // From connecting to a whole first request (before the token is seen): idle and slow
    // connections are closed after this, so they cannot hold the API's room.
    double header_timeout_s = 2;
    size_t max_pending = 64;           // connections that have not yet sent an authorized request
    size_t max_pending_per_peer = 16;  //   ... from one address
    size_t max_trusted = 64;           // connections that have (a reserve the others cannot take)
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
    void event(const core::RunEvent& e) override;
    // Sends what subscribers still have queued, then closes every connection:
    // the run's event loop stops right after, and with it the API.
    void finished() override;

    // Connections held now that have / have not sent an authorized request (tests).
    size_t trusted_connections() const;
    size_t pending_connections() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace seatmark::orchestrator
