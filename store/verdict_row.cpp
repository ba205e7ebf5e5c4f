#include "store/verdict_row.h"

namespace seatmark::store {

void put_verdict(VerdictRow& row, const core::StepVerdict& v) {
    row.target_sessions = static_cast<int>(v.target);
    row.pass = v.pass;
    row.failures = v.failures;
    row.frames = static_cast<int64_t>(v.frames);
    row.dropped = static_cast<int64_t>(v.dropped);
    row.fps_median = v.fps_median;
    row.fps_min = v.fps_min;
    row.fps_max = v.fps_max;
    row.p95_median_ms = v.p95_median_ms;
    row.p95_worst_ms = v.p95_worst_ms;
    row.low1_worst_fps = v.low1_worst_fps;
    row.latency_p95_worst_ms = v.latency_p95_worst_ms;
    row.stutter_worst = v.stutter_worst;
    row.fairness = v.fairness;
    row.gpu_mem_peak_pct = v.gpu_mem_peak_pct;
    row.reasons = v.reasons;
}

core::StepVerdict verdict_of(const VerdictRow& row) {
    core::StepVerdict v;
    v.target = static_cast<uint32_t>(row.target_sessions);
    v.pass = row.pass;
    v.failures = static_cast<uint32_t>(row.failures);
    v.frames = static_cast<uint64_t>(row.frames);
    v.dropped = static_cast<uint64_t>(row.dropped);
    v.fps_median = row.fps_median;
    v.fps_min = row.fps_min;
    v.fps_max = row.fps_max;
    v.p95_median_ms = row.p95_median_ms;
    v.p95_worst_ms = row.p95_worst_ms;
    v.low1_worst_fps = row.low1_worst_fps;
    v.latency_p95_worst_ms = row.latency_p95_worst_ms;
    v.stutter_worst = row.stutter_worst;
    v.fairness = row.fairness;
    v.gpu_mem_peak_pct = row.gpu_mem_peak_pct;
    v.reasons = row.reasons;
    return v;
}

}  // namespace seatmark::store
