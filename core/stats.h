#pragma once
// The statistics of docs/design.md "Metrics, defined once", each in one function
// so every figure seatmark prints has exactly one definition.
#include <cstdint>
#include <span>
#include <vector>

#include "common/frame_record.h"
#include "common/frame_summary.h"

namespace seatmark::stats {

// Nearest-rank percentile: the smallest value v such that at least p % of the
// values are <= v, i.e. sorted[ceil(p/100 * n) - 1] (p in (0,100]; p=0 gives the minimum).
// Returns NaN for an empty input. Does not need sorted input.
double percentile_nearest_rank(std::span<const double> values, double p);

double median(std::span<const double> values);  // nearest-rank p50

// seatmark's 1 % low FPS: 1000 / p99 frame interval in ms (the rate the slowest 1 % of
// intervals stay under). NaN when p99 is NaN or 0.
double one_percent_low_fps(double p99_interval_ms);

// MangoHud's "1% Min FPS": the mean of the per-frame FPS (1000 / interval ms) of the slowest
// 1 % of frames (at least one frame). Always <= the p99 figure; shown beside it so either
// tool's numbers can be compared. NaN when there is no positive interval.
double one_percent_min_fps_mangohud(std::span<const double> intervals_ms);

// Time-weighted 1 % low (CapFrameX "1% low average"-style, labelled as such wherever shown):
// the slowest frames that together cover 1 % of the total time, FPS = their count / their time.
double one_percent_low_fps_time_weighted(std::span<const double> intervals_ms);

// Share (0..1) of frames whose interval exceeds factor x the median interval.
double stutter_share(std::span<const double> intervals_ms, double factor = 2.5);

// Gaps in a per-session sequence: (max - min + 1) - distinct count. Input need not be sorted.
uint64_t dropped_frames(std::span<const uint64_t> seqs);

// Jain's fairness index (sum x)^2 / (n * sum x^2); 1 for n == 0 or all zero.
double jain_fairness(std::span<const double> values);

// Summarises frames per the definitions above. Intervals are taken from
// FrameRecord::interval_ns (>= 0 only), so intervals never span a think pause.
FrameSummary summarize(std::span<const FrameRecord> frames, double active_seconds);

}  // namespace seatmark::stats
