#pragma once
// A session's frame figures as plain data: the session sends them in its BYE
// (common/wire_protocol.h), the report and the verdict rules read them. How they
// are computed lives in core/stats.h (summarize).
#include <cstdint>

namespace seatmark::stats {

// What a session prints at its end and what the report shows per session.
struct FrameSummary {
    uint64_t frames = 0;
    double active_s = 0;          // time spent in active stretches (the FPS denominator)
    double fps = 0;               // frames / active time
    double p50_ms = 0, p95_ms = 0, p99_ms = 0;  // nearest-rank percentiles of frame interval
    double low1_fps = 0;          // 1000 / p99
    double low1_min_fps = 0;      // MangoHud's "1% Min FPS" (mean FPS of the slowest 1 % of frames)
    double low1_tw_fps = 0;       // time-weighted variant
    double stutter = 0;           // share 0..1
    double latency_p95_ms = 0;    // NaN when no frame carried an input event
    double cpu_p50_ms = 0, gpu_p50_ms = 0;  // gpu NaN when no timestamps
    uint64_t dropped = 0;
};

}  // namespace seatmark::stats
