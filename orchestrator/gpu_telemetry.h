#pragma once
// What the run controller holds for GPU sharing: the hardware backend that works
// here (NVML or DRM fdinfo, or none), the software backend beside it, the device
// memory history the step verdict's GPU memory bound is judged on, and the
// conversion of a sample into store rows (metric names: docs/store.md, samples).
#include <functional>
#include <string>
#include <vector>

#include "store/records.h"
#include "core/gpu_memory_check.h"
#include "orchestrator/gpu_sampler.h"
#include "orchestrator/gpu_software.h"

namespace seatmark::orchestrator {

class GpuTelemetry {
public:
    explicit GpuTelemetry(GpuBackends backends, unsigned software_cpus = 0);

    // "nvml", "drm", or "software" when no hardware backend works here.
    const std::string& backend() const { return backend_; }
    // One line for the run's 'gpu-backend' event: the backend, what it measures, and why
    // each hardware backend that does not work does not.
    std::string describe() const;
    // "nvml: <why>" for each hardware backend that does not work here.
    std::vector<std::string> unavailable() const;
    const std::vector<BackendStatus>& status() const { return backends_.status; }

    // Samples the hardware backend, if any, and the software one. Sessions whose renderer is a
    // CPU device get their software share; the others only what the hardware backend saw.
    GpuSnapshot sample(int64_t t_ns, const std::vector<GpuClient>& clients);

    // The GPU memory bound over [t0, t1), from the device memory samples taken so far.
    core::GpuMemoryCheck check_memory(int64_t t0, int64_t t1, double limit_pct) const;
    // The same check over a copy of the samples taken so far, for the judge's thread
    // (orchestrator/judge_worker.h) while this one goes on sampling.
    std::function<core::GpuMemoryCheck(int64_t t0, int64_t t1, double limit_pct)> memory_check() const;
    // Drops the device memory samples taken before t_ns. The controller calls it as a step begins:
    // every span judged later lies within that step, and a judgement under way has its own copy.
    // Without it the history (one point a device a second) grew for the whole run: ~35 MB a device
    // over a week-long soak, copied whole into every judgement.
    void forget_memory_before(int64_t t_ns);

private:
    GpuBackends backends_;
    SoftwareSampler software_;
    std::string backend_;
    std::vector<core::GpuMemoryPoint> memory_;
};

// Store rows for one sample. Device-wide (session_id NULL), source = the backend:
//   gpu_util_pct, gpu_mem_util_pct, gpu_mem_used_bytes, gpu_mem_total_bytes, gpu_enc_pct,
//   gpu_dec_pct, gpu_power_w, gpu_temp_c, gpu_sm_clock_mhz, gpu_mem_clock_mhz, gpu_throttle_reasons
// With several devices those names hold the host's aggregate (utilizations averaged, memory
// and power summed, temperature the highest, reasons OR-ed, clocks left out) and each device
// also gets gpuN_<name> rows. Per session, source = the backend that measured it:
//   gpu_share_pct, gpu_mem_bytes, and with NVML gpu_mem_util_pct, gpu_enc_pct, gpu_dec_pct.
std::vector<store::SampleRow> gpu_sample_rows(const GpuSnapshot& s);

}  // namespace seatmark::orchestrator
