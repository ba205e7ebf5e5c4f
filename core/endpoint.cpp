#include "core/endpoint.h"

#include <algorithm>
#include <unordered_map>

#include "core/stats.h"

namespace seatmark::core {

EndpointFigures endpoint_figures(std::span<const FrameRecord> frames, std::span<const EndpointArrival> arrivals,
                                 std::span<const SsimSample> ssim, double span_s, int64_t arrived_before) {
    EndpointFigures f;
    f.rendered = frames.size();
    if (frames.empty()) return f;
    std::unordered_map<uint64_t, int64_t> present;  // seq -> present time of the span's frames
    present.reserve(frames.size());
    for (const auto& fr : frames) present.emplace(fr.seq, fr.t_present_ns);
    std::vector<EndpointArrival> in;
    for (const auto& a : arrivals)
        if (a.arrival_ns < arrived_before && present.count(a.seq)) in.push_back(a);
    // A frame arrives once: a repeated number (a launcher re-sent it) is not a second arrival;
    // the first time it was seen counts.
    std::sort(in.begin(), in.end(), [](const EndpointArrival& x, const EndpointArrival& y) {
        return x.seq != y.seq ? x.seq < y.seq : x.arrival_ns < y.arrival_ns;
    });
    in.erase(std::unique(in.begin(), in.end(), [](const EndpointArrival& x, const EndpointArrival& y) { return x.seq == y.seq; }),
             in.end());
    std::sort(in.begin(), in.end(), [](const EndpointArrival& x, const EndpointArrival& y) {
        return x.arrival_ns != y.arrival_ns ? x.arrival_ns < y.arrival_ns : x.seq < y.seq;
    });
    f.arrivals = in.size();
    f.delivered_ratio = double(f.arrivals) / double(f.rendered);
    if (span_s > 0) f.fps = double(f.arrivals) / span_s;
    std::vector<double> intervals, latencies;
    for (size_t i = 0; i < in.size(); ++i) {
        // Differences in double: stamps read from a file may be far apart, and int64 overflow is undefined.
        latencies.push_back((double(in[i].arrival_ns) - double(present.at(in[i].seq))) * 1e-6);
        if (i) intervals.push_back((double(in[i].arrival_ns) - double(in[i - 1].arrival_ns)) * 1e-6);
    }
    f.interval_p50_ms = stats::percentile_nearest_rank(intervals, 50);
    f.interval_p95_ms = stats::percentile_nearest_rank(intervals, 95);
    f.interval_p99_ms = stats::percentile_nearest_rank(intervals, 99);
    f.latency_p50_ms = stats::percentile_nearest_rank(latencies, 50);
    f.latency_p95_ms = stats::percentile_nearest_rank(latencies, 95);
    std::unordered_map<uint64_t, bool> arrived;
    for (const auto& a : in) arrived.emplace(a.seq, true);
    double sum = 0;
    for (const auto& s : ssim) {
        if (!arrived.count(s.seq) || !std::isfinite(s.ssim)) continue;  // a sample is of an arrival
        ++f.ssim_samples;
        sum += s.ssim;
        f.ssim_min = std::isnan(f.ssim_min) ? s.ssim : std::min(f.ssim_min, s.ssim);
    }
    if (f.ssim_samples) f.ssim_mean = sum / double(f.ssim_samples);
    return f;
}

}  // namespace seatmark::core
