#pragma once
// The monitor's live source: polls a running orchestrator's API (/api/v1/state,
// /api/v1/history, /api/v1/frames) on a thread of its own, twice a second. When the
// orchestrator goes away it keeps the last state and retries; when one comes back
// (a new run) it starts over. Without a URL it looks on 127.0.0.1:7878..7887, the
// ports `seatmark run` falls back to.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "monitor/data_source.h"
#include "monitor/http_client.h"

namespace seatmark::monitor {

struct LiveSourceOptions {
    std::string url;          // "" : look on the default ports
    std::string token;        // sent as "Authorization: Bearer TOKEN" when set
    double poll_s = 0.5;
    double timeout_s = 2.0;   // per request
};

class LiveApiSource : public DataSource {
public:
    explicit LiveApiSource(LiveSourceOptions o);  // throws InputError for a malformed URL
    ~LiveApiSource() override;
    std::shared_ptr<const MonitorData> snapshot() override;
    void select_session(std::optional<uint32_t> id) override;

private:
    void loop();
    void poll(const HttpUrl& u);
    void publish();
    void reset_run();
    nlohmann::json get_json(const HttpUrl& u, const std::string& target);

    LiveSourceOptions opts_;
    std::vector<HttpUrl> candidates_;
    size_t current_ = 0;
    bool connected_once_ = false;

    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::optional<uint32_t> wanted_;
    std::shared_ptr<const MonitorData> published_;

    // Owned by the polling thread.
    MonitorData work_;
    std::shared_ptr<const FrameSeries> frames_;
    uint64_t frames_next_ = 0;
    int64_t run_started_unix_ns_ = 0, mono_start_ns_ = 0;
    double history_since_ = -1;
    uint64_t last_event_id_ = 0;
    bool run_ended_ = false;

    std::thread thread_;
};

}  // namespace seatmark::monitor
