#pragma once
// The service level a session must meet, and the judgement of one session's
// figures against it (docs/design.md "Density verdict"). Shared by the orchestrator's
// live verdict and the report, so both judge by the same rule.
#include <cstdint>
#include <string>
#include <vector>

#include "core/endpoint.h"
#include "core/stats.h"

namespace seatmark {

struct Sla {
    double p95_interval_ms = 33.3;  // nearest-rank p95 of frame interval, at most
    double low1_fps = 20;           // 1 % low FPS (1000 / p99), at least
    double latency_p95_ms = 100;    // interaction latency p95, at most
    double stutter_pct = 5;         // share of frames > 2.5 x median interval, at most
    uint32_t failures = 0;          // failed sessions allowed in a step
    double gpu_memory_pct = 95;     // GPU memory in use, below (checked where GPU samples exist)
    double model_open_ms = 0;       // model open time (session start -> first frame showing it), at most; 0: no bound
    // Endpoint bounds (core/endpoint.h), judged only for sessions a launcher watches; 0: no bound.
    double endpoint_fps = 0;             // frames arriving at the RDP client per second, at least
    double endpoint_latency_p95_ms = 0;  // render (present) -> arrival at the client, p95, at most
    double delivered_ratio = 0;          // frames arrived / frames rendered, at least (0..1)
    double ssim = 0;                     // mean SSIM of sampled received frames, at least (0..1)
    bool has_endpoint_bound() const {
        return endpoint_fps > 0 || endpoint_latency_p95_ms > 0 || delivered_ratio > 0 || ssim > 0;
    }
};

// Each bound the figures break, as text such as "p95 41.2 ms > 33.3 ms".
// A session that drew no frame with an interval in the window breaks the SLA too
// ("no frames"): a user who sees nothing is not served. A figure that cannot be
// measured (latency with no input in the window) is not held against it.
std::vector<std::string> sla_violations(const stats::FrameSummary& s, const Sla& sla);

// How far a session's frame figures are from breaking the SLA: its largest figure-to-bound
// ratio (p95 / bound, bound / 1 % low, latency p95 / bound, stutter / bound; > 1 breaks that
// bound), infinite without frames, and which figure it was ("p95 41.2 ms vs 33.3 ms"). The one
// rule that ranks sessions: the adaptive search's deciding figure (core/density_search.h) and a
// step's worst session (core::judge_figures) both take it.
struct SlaLoad {
    double load = 0;
    std::string figure;
};
SlaLoad sla_load(const stats::FrameSummary& s, const Sla& sla);

// The endpoint bounds a launched session's figures break ("endpoint 12.0 FPS < 20.0 FPS").
// Frames rendered but none arriving breaks any endpoint bound ("no frames arrived at the
// endpoint"); a figure with nothing measured (SSIM without a sample) is not held against it.
std::vector<std::string> endpoint_violations(const core::EndpointFigures& e, const Sla& sla);

}  // namespace seatmark
