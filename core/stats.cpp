#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace seatmark::stats {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Nearest rank on values the caller may reorder.
double percentile_in_place(std::vector<double>& v, double p) {
    if (v.empty()) return nan;
    const size_t n = v.size();
    size_t rank = 1;  // 1-based
    if (p > 0) {
        // p * n / 100 rather than p / 100 * n keeps exact cases exact (95 % of 100 is 95,
        // not 95.00000000000001); the tolerance absorbs the remaining rounding so that
        // 99.9 % of 1000 is rank 999, not 1000.
        double x = std::min(p, 100.0) * static_cast<double>(n) / 100.0;
        double r = std::ceil(x - 1e-9 * std::max(1.0, x));
        rank = static_cast<size_t>(std::clamp(r, 1.0, static_cast<double>(n)));
    }
    auto nth = v.begin() + static_cast<std::ptrdiff_t>(rank - 1);
    std::nth_element(v.begin(), nth, v.end());
    return *nth;
}

std::vector<double> finite_copy(std::span<const double> values) {
    std::vector<double> v;
    v.reserve(values.size());
    for (double x : values)
        if (!std::isnan(x)) v.push_back(x);
    return v;
}

}  // namespace

double percentile_nearest_rank(std::span<const double> values, double p) {
    if (std::isnan(p)) return nan;
    std::vector<double> v = finite_copy(values);
    return percentile_in_place(v, p);
}

double median(std::span<const double> values) { return percentile_nearest_rank(values, 50); }

double one_percent_low_fps(double p99_interval_ms) {
    if (std::isnan(p99_interval_ms) || p99_interval_ms <= 0) return nan;
    return 1000.0 / p99_interval_ms;
}

double one_percent_min_fps_mangohud(std::span<const double> intervals_ms) {
    std::vector<double> v;
    v.reserve(intervals_ms.size());
    for (double x : intervals_ms)
        if (x > 0) v.push_back(x);  // a zero or NaN interval has no per-frame FPS
    if (v.empty()) return nan;
    const size_t k = std::max<size_t>(1, v.size() / 100);
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end(), std::greater<>());
    double sum = 0;
    for (size_t i = 0; i < k; ++i) sum += 1000.0 / v[i];
    return sum / static_cast<double>(k);
}

double one_percent_low_fps_time_weighted(std::span<const double> intervals_ms) {
    std::vector<double> v = finite_copy(intervals_ms);
    if (v.empty()) return nan;
    std::sort(v.begin(), v.end(), std::greater<>());
    double total = 0;
    for (double x : v) total += x;
    if (total <= 0) return nan;
    // Slowest first, until they cover 1 % of the time; the frame that crosses the
    // 1 % mark is included, so at least one frame always counts.
    const double target = total * 0.01;
    double covered = 0;
    size_t count = 0;
    for (double x : v) {
        covered += x;
        ++count;
        if (covered >= target) break;
    }
    if (covered <= 0) return nan;
    return static_cast<double>(count) * 1000.0 / covered;
}

double stutter_share(std::span<const double> intervals_ms, double factor) {
    std::vector<double> v = finite_copy(intervals_ms);
    if (v.empty()) return nan;
    const double limit = factor * percentile_in_place(v, 50);
    size_t slow = 0;
    for (double x : v)
        if (x > limit) ++slow;
    return static_cast<double>(slow) / static_cast<double>(v.size());
}

uint64_t dropped_frames(std::span<const uint64_t> seqs) {
    if (seqs.empty()) return 0;
    std::vector<uint64_t> v(seqs.begin(), seqs.end());
    std::sort(v.begin(), v.end());
    const uint64_t distinct = static_cast<uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
    return (v.back() - v.front() + 1) - distinct;
}

double jain_fairness(std::span<const double> values) {
    double sum = 0, sum_sq = 0;
    for (double x : values) {
        sum += x;
        sum_sq += x * x;
    }
    if (values.empty() || sum_sq == 0) return 1.0;
    return sum * sum / (static_cast<double>(values.size()) * sum_sq);
}

FrameSummary summarize(std::span<const FrameRecord> frames, double active_seconds) {
    constexpr double ms_per_ns = 1e-6;
    FrameSummary s;
    s.frames = frames.size();
    s.active_s = active_seconds;
    s.fps = active_seconds > 0 ? static_cast<double>(frames.size()) / active_seconds : nan;

    std::vector<double> intervals, latencies, cpu, gpu;
    std::vector<uint64_t> seqs;
    intervals.reserve(frames.size());
    cpu.reserve(frames.size());
    seqs.reserve(frames.size());
    for (const FrameRecord& f : frames) {
        seqs.push_back(f.seq);
        cpu.push_back(static_cast<double>(f.cpu_ns) * ms_per_ns);
        if (f.interval_ns >= 0) intervals.push_back(static_cast<double>(f.interval_ns) * ms_per_ns);
        if (f.latency_ns >= 0) latencies.push_back(static_cast<double>(f.latency_ns) * ms_per_ns);
        if (f.gpu_ns >= 0) gpu.push_back(static_cast<double>(f.gpu_ns) * ms_per_ns);
    }

    s.p50_ms = percentile_nearest_rank(intervals, 50);
    s.p95_ms = percentile_nearest_rank(intervals, 95);
    s.p99_ms = percentile_nearest_rank(intervals, 99);
    s.low1_fps = one_percent_low_fps(s.p99_ms);
    s.low1_min_fps = one_percent_min_fps_mangohud(intervals);
    s.low1_tw_fps = one_percent_low_fps_time_weighted(intervals);
    s.stutter = stutter_share(intervals);
    s.latency_p95_ms = percentile_nearest_rank(latencies, 95);
    s.cpu_p50_ms = percentile_nearest_rank(cpu, 50);
    s.gpu_p50_ms = percentile_nearest_rank(gpu, 50);
    s.dropped = dropped_frames(seqs);
    return s;
}

}  // namespace seatmark::stats
