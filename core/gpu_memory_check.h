#pragma once
// The SLA's GPU memory bound (Sla::gpu_memory_pct): a step fails when GPU memory
// in use during its measured window(s) reached the bound on any device. Judged
// only where device memory samples exist; elsewhere the result says the bound was
// not checked, and why.
#include <cstdint>
#include <string>
#include <vector>

namespace seatmark::core {

struct GpuMemoryPoint {
    int64_t t_ns = 0;
    uint32_t device = 0;
    double used_bytes = 0, total_bytes = 0;
    std::string source;  // "nvml", "drm"
};

struct GpuMemoryCheck {
    bool checked = false;  // false: no GPU memory sample in the window
    bool pass = true;      // true when not checked
    double peak_pct = 0;   // highest used / total over the window and devices
    std::string detail;    // "GPU memory 96.2 % >= 95 % (nvml, device 0)", or why it was not checked
};

// Points with t_ns in [t0, t1) against `limit_pct` (used must stay below it).
// `why_none` completes the "not checked" detail (e.g. the backend and its reason).
GpuMemoryCheck check_gpu_memory(const std::vector<GpuMemoryPoint>& points, int64_t t0, int64_t t1,
                                double limit_pct, const std::string& why_none = "");

}  // namespace seatmark::core
