#pragma once
// The live API's JSON, in one place (docs/live-api.md describes it): LiveState to
// JSON and back (the monitor reads what the orchestrator writes), frames, events,
// and the once-a-second history the API keeps so a late monitor sees the whole run.
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/live_state.h"

namespace seatmark::core {

struct Plan;

// One event as the API serves it (SSE and the state's recent list).
struct LiveEvent {
    uint64_t id = 0;             // 1, 2, ... in order of arrival
    int64_t t_unix_ns = 0;       // wall clock when the orchestrator reported it
    RunEvent data;               // what the run controller reported
    const char* kind() const { return event_kind(data); }
};

// Run-wide figures once a second, for the p95/FPS and resource plots.
struct LiveHistoryPoint {
    double t_s = 0;              // seconds since the run started
    uint32_t step = 0, target = 0, alive = 0;  // step 1-based, 0 before the first
    double fps_median = 0, fps_min = 0;        // over running sessions with frames (NaN: none)
    double p95_median_ms = 0, p95_worst_ms = 0;
    uint32_t sla_failing = 0;    // running sessions breaking their SLA right now
    double host_cpu_pct = 0, host_mem_used_bytes = 0, host_mem_total_bytes = 0;
    double gpu_util_pct = 0, gpu_mem_used_bytes = 0;  // NaN without GPU samples
};

// Summarises a state into one history point (NaN where nothing was measured).
LiveHistoryPoint history_point(const LiveState& s);

// A bounded series: once full it keeps every other point and doubles its spacing,
// so a long run keeps its whole shape in at most `capacity` points.
class LiveHistory {
public:
    explicit LiveHistory(size_t capacity = 3600) : capacity_(capacity) {}
    void add(const LiveHistoryPoint& p);
    const std::deque<LiveHistoryPoint>& points() const { return points_; }
    double spacing_s() const { return spacing_s_; }

private:
    size_t capacity_;
    double spacing_s_ = 1.0;
    std::deque<LiveHistoryPoint> points_;
};

// GET /api/v1/state. `mono_start_ns`: CLOCK_MONOTONIC at the run's start (the clock of frames' t_begin_ns).
// `plan`: what plan_json() says about the run's plan (or null).
nlohmann::json state_json(const LiveState& s, int64_t mono_start_ns, const std::deque<LiveEvent>& recent_events,
                          const nlohmann::json& plan = nullptr);
// The reverse, for the monitor; missing fields keep their defaults, null numbers read as NaN.
LiveState state_from_json(const nlohmann::json& j);

nlohmann::json event_json(const LiveEvent& e);
nlohmann::json event_data_json(const RunEvent& e);  // the "data" member alone
// nullopt for a kind this version does not know (a newer server) or what is not an event.
std::optional<LiveEvent> event_from_json(const nlohmann::json& j);

nlohmann::json frames_json(uint32_t session, uint64_t since, const std::vector<LiveFrame>& frames, size_t max);
std::vector<LiveFrame> frames_from_json(const nlohmann::json& j);

nlohmann::json history_json(const std::deque<LiveHistoryPoint>& points, double since_s, double spacing_s);
std::vector<LiveHistoryPoint> history_from_json(const nlohmann::json& j);

// The plan facts a viewer needs: the step targets, settle and window, the default SLA.
nlohmann::json plan_json(const Plan& p);

// JSON text for the API. Strings that are not valid UTF-8 (a query the client sent,
// a name from a process) get U+FFFD in place of bad bytes instead of an exception.
std::string json_text(const nlohmann::json& j, int indent = -1);

// A number for JSON: NaN and infinities become null.
nlohmann::json number_or_null(double v);

}  // namespace seatmark::core
