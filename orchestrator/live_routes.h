#pragma once
// What the live API answers (docs/live-api.md): the token check, then one route
// per endpoint with its query checked. Plain request in, reply out; the HTTP
// server (live_http.h) does the connections.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "orchestrator/live_events.h"
#include "orchestrator/live_http.h"
#include "core/live_json.h"
#include "orchestrator/live_metrics.h"
#include "orchestrator/live_observer.h"

namespace seatmark::orchestrator {

// True when an Authorization header value carries `token` with the Bearer scheme
// (the scheme case-insensitive, RFC 9110 11.1); the token compared in constant time.
bool bearer_matches(std::string_view header, const std::string& token);

class LiveRoutes {
public:
    static constexpr size_t frames_default = 2000, frames_limit = 10000;
    static constexpr size_t state_events = 50;          // recent events inside /api/v1/state
    static constexpr int64_t state_cache_ns = 250'000'000;  // at most 4 live_state() calls a second

    // token: "" when none is needed. The routes read the events, history and counters
    // they are given; the API that owns them keeps them up to date.
    LiveRoutes(std::string token, nlohmann::json plan, const EventStream& events, const core::LiveHistory& history,
               const ApiCounters& counters);

    void attach(LiveSource& source) { source_ = &source; }
    HttpReply handle(const HttpRequest& req);

    // The source's state, taken again when older than state_cache_ns (or forced).
    const core::LiveState& current_state(bool force = false);
    void state_changed() { state_.reset(); }  // the next request sees what an event changed

private:
    HttpReply route(std::string_view path, std::string_view query, const HttpRequest& req);

    std::string token_;
    nlohmann::json plan_;
    const EventStream& events_;
    const core::LiveHistory& history_;
    const ApiCounters& counters_;
    LiveSource* source_ = nullptr;
    std::optional<core::LiveState> state_;
    int64_t state_at_ns_ = 0, mono_start_ns_ = 0;
};

}  // namespace seatmark::orchestrator
