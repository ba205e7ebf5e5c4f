#include "core/sla.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace seatmark {

namespace {
std::string fmt(const char* f, double a, double b) {
    char buf[96];
    std::snprintf(buf, sizeof buf, f, a, b);
    return buf;
}
}  // namespace

std::vector<std::string> sla_violations(const stats::FrameSummary& s, const Sla& sla) {
    std::vector<std::string> v;
    if (s.frames == 0 || std::isnan(s.p95_ms)) {
        v.push_back("no frames");
        return v;
    }
    if (s.p95_ms > sla.p95_interval_ms) v.push_back(fmt("p95 %.1f ms > %.1f ms", s.p95_ms, sla.p95_interval_ms));
    if (s.low1_fps < sla.low1_fps) v.push_back(fmt("1%% low %.1f FPS < %.1f FPS", s.low1_fps, sla.low1_fps));
    if (!std::isnan(s.latency_p95_ms) && s.latency_p95_ms > sla.latency_p95_ms)
        v.push_back(fmt("latency p95 %.1f ms > %.1f ms", s.latency_p95_ms, sla.latency_p95_ms));
    if (s.stutter * 100 > sla.stutter_pct) v.push_back(fmt("stutter %.1f %% > %.1f %%", s.stutter * 100, sla.stutter_pct));
    return v;
}

SlaLoad sla_load(const stats::FrameSummary& f, const Sla& sla) {
    SlaLoad w;
    auto consider = [&w](double load, std::string what) {
        if (load > w.load || w.figure.empty()) {
            w.load = load;
            w.figure = std::move(what);
        }
    };
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (f.frames == 0 || std::isnan(f.p95_ms)) {
        consider(inf, "no frames");
        return w;
    }
    consider(f.p95_ms / sla.p95_interval_ms, fmt("p95 %.1f ms vs %.1f ms", f.p95_ms, sla.p95_interval_ms));
    if (sla.low1_fps > 0)
        consider(f.low1_fps > 0 ? sla.low1_fps / f.low1_fps : inf, fmt("1 %% low %.1f FPS vs %.1f FPS", f.low1_fps, sla.low1_fps));
    if (std::isfinite(f.latency_p95_ms) && sla.latency_p95_ms > 0)
        consider(f.latency_p95_ms / sla.latency_p95_ms,
                 fmt("latency p95 %.1f ms vs %.1f ms", f.latency_p95_ms, sla.latency_p95_ms));
    if (sla.stutter_pct > 0)
        consider(f.stutter * 100 / sla.stutter_pct, fmt("stutter %.1f %% vs %.1f %%", f.stutter * 100, sla.stutter_pct));
    return w;
}

std::vector<std::string> endpoint_violations(const core::EndpointFigures& e, const Sla& sla) {
    std::vector<std::string> v;
    if (!sla.has_endpoint_bound() || e.rendered == 0) return v;
    if (e.arrivals == 0) {
        v.push_back("no frames arrived at the endpoint");
        return v;
    }
    if (sla.endpoint_fps > 0 && e.fps < sla.endpoint_fps)
        v.push_back(fmt("endpoint %.1f FPS < %.1f FPS", e.fps, sla.endpoint_fps));
    if (sla.endpoint_latency_p95_ms > 0 && e.latency_p95_ms > sla.endpoint_latency_p95_ms)
        v.push_back(fmt("endpoint latency p95 %.1f ms > %.1f ms", e.latency_p95_ms, sla.endpoint_latency_p95_ms));
    if (sla.delivered_ratio > 0 && e.delivered_ratio < sla.delivered_ratio)
        v.push_back(fmt("delivered %.1f %% < %.1f %%", e.delivered_ratio * 100, sla.delivered_ratio * 100));
    if (sla.ssim > 0 && e.ssim_mean < sla.ssim)  // NaN (no sample) compares false
        v.push_back(fmt("SSIM %.3f < %.3f", e.ssim_mean, sla.ssim));
    return v;
}

}  // namespace seatmark
