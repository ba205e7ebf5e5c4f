#include "core/sla.h"

#include <cmath>
#include <cstdio>

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

}  // namespace seatmark
