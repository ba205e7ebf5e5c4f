#pragma once
// Judges one span of a step (one measurement window, or the step pooled over its
// windows): each member session's frames inside the span against its profile's SLA,
// plus the members that failed. Who is a member, pooling and the GPU memory bound
// are in core/step_rules.h; the orchestrator and the report both judge with these.
#include <cstdint>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "core/endpoint.h"
#include "core/sla.h"
#include "core/stats.h"

namespace seatmark::core {

struct SessionWindow {
    uint32_t id = 0;
    std::string profile;
    const Sla* sla = nullptr;
    std::vector<FrameRecord> frames;  // frames that began inside the window(s)
    std::string failure;              // "" when alive and well; else the end reason (crash, hang, ...)
    double model_open_ms = NAN;       // the session's model open time; NaN until it reported one
    const EndpointSeries* endpoint = nullptr;  // what a launcher saw of it; nullptr: not launched
    double span_s = 0;                // the window's length (endpoint FPS)
    int64_t t1_ns = INT64_MAX;        // its end: arrivals after it do not count (core/endpoint.h)
};

struct SessionFigures {
    uint32_t id = 0;
    std::string profile;
    stats::FrameSummary summary;
    std::vector<std::string> violations;
    std::string failure;
    double model_open_ms = NAN;
    std::optional<EndpointFigures> endpoint;  // launched sessions only
    // Its largest figure-to-bound ratio over every bound it is judged by (core::sla_load, model
    // open, endpoint; > 1 breaks one): what ranks the step's worst session. NaN when it ended in
    // failure or had no SLA.
    double sla_load = NAN;
};

struct StepVerdict {
    uint32_t target = 0;
    std::vector<SessionFigures> sessions;
    std::map<std::string, uint32_t> failures_by_reason;
    uint32_t failures = 0;
    // Figures over the member sessions; NaN (shown as n/a) where nothing was measured: no session
    // had a frame (FPS, 1 % low, stutter, fairness), a frame interval (p95) or an input event (latency).
    double fps_median = 0, fps_min = 0, fps_max = 0;  // over sessions (per-session FPS)
    double p95_median_ms = 0, p95_worst_ms = 0;
    double low1_worst_fps = 0, latency_p95_worst_ms = 0, stutter_worst = 0;
    uint64_t frames = 0, dropped = 0;
    double fairness = 1;      // Jain's index over per-session FPS
    // Endpoint figures over the launched members (core/endpoint.h); NaN when none had any.
    double endpoint_fps_worst = NAN, endpoint_latency_p95_worst_ms = NAN, delivered_ratio_worst = NAN, ssim_worst = NAN;
    uint32_t launched = 0;    // members a launcher watches
    double gpu_mem_peak_pct = -1;  // highest GPU memory use in the span (the SLA's bound); -1 not checked
    bool pass = false;
    std::vector<std::string> reasons;  // why it failed, most telling first
    // Members that failed: ended in failure or broke their SLA. The worst is the one that broke its
    // SLA by the largest figure-to-bound ratio (SessionFigures::sla_load; the first among equals);
    // those that ended in failure are counted, and named by the failure-count reason.
    uint32_t sessions_failed = 0;
    std::optional<uint32_t> worst_session;  // its id; none when no member broke its SLA
};

// Active time of a window's frames: the sum of their intervals, so think pauses
// (which carry no interval) do not count, as docs/design.md's FPS definition wants.
double active_seconds(const std::vector<FrameRecord>& frames);

// `target`: the sessions the step runs with; fewer members than that fail it.
StepVerdict judge_window(uint32_t target, const std::vector<SessionWindow>& sessions, uint32_t failures_allowed);

// judge_window in its two halves, so a caller can judge one member at a time and let its frames
// go before the next (core::judge_span: memory for one session's span, not every session's).
// One member's figures over its window: summary, SLA and model-open violations, endpoint figures.
SessionFigures session_figures(const SessionWindow& s);
// The span's verdict from its members' figures, in member order.
StepVerdict judge_figures(uint32_t target, std::vector<SessionFigures> members, uint32_t failures_allowed);

// A session's reason names it "session ID: ..."; these are the one place that text is made and read.
std::string session_reason(uint32_t id, const std::vector<std::string>& violations);
// The step's reason for its sessions, every failing one counted and the worst named:
// "3 of 4 sessions failed (1 crash); worst session 1: p95 53.0 ms > 33.3 ms, ...".
std::string sessions_reason(const StepVerdict& v);
// The reason with its session number moved by `shift` (seatmark merge renumbers each host's
// sessions after the previous hosts'), in either form above; any other reason comes back as it was.
std::string renumber_session_reason(const std::string& reason, int64_t shift);

}  // namespace seatmark::core
