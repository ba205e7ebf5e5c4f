#pragma once
// The service level a session must meet, and the judgement of one session's
// figures against it (docs/design.md "Density verdict"). Shared by the orchestrator's
// live verdict and the report, so both judge by the same rule.
#include <cstdint>
#include <string>
#include <vector>

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
};

// Each bound the figures break, as text such as "p95 41.2 ms > 33.3 ms".
// A session that drew no frame with an interval in the window breaks the SLA too
// ("no frames"): a user who sees nothing is not served. A figure that cannot be
// measured (latency with no input in the window) is not held against it.
std::vector<std::string> sla_violations(const stats::FrameSummary& s, const Sla& sla);

}  // namespace seatmark
