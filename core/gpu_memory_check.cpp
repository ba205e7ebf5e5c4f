#include "core/gpu_memory_check.h"

#include <cstdio>

namespace seatmark::core {

namespace {
std::string fmt_pct(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f %%", v);
    return b;
}
}  // namespace

GpuMemoryCheck check_gpu_memory(const std::vector<GpuMemoryPoint>& points, int64_t t0, int64_t t1,
                                double limit_pct, const std::string& why_none) {
    GpuMemoryCheck c;
    const GpuMemoryPoint* peak = nullptr;
    for (const auto& p : points) {
        if (p.t_ns < t0 || p.t_ns >= t1 || p.total_bytes <= 0) continue;
        double pct = 100.0 * p.used_bytes / p.total_bytes;
        if (!peak || pct > c.peak_pct) {
            peak = &p;
            c.peak_pct = pct;
        }
    }
    if (!peak) {
        c.detail = "GPU memory bound (< " + fmt_pct(limit_pct) + ") not checked: no GPU memory samples" +
                   (why_none.empty() ? "" : " (" + why_none + ")");
        return c;
    }
    c.checked = true;
    c.pass = c.peak_pct < limit_pct;
    c.detail = "GPU memory " + fmt_pct(c.peak_pct) + (c.pass ? " < " : " >= ") + fmt_pct(limit_pct) + " (" +
               peak->source + ", device " + std::to_string(peak->device) + ")";
    return c;
}

}  // namespace seatmark::core
