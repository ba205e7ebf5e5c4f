#include "orchestrator/gpu_sampler.h"

#include "orchestrator/gpu_drm.h"
#include "orchestrator/gpu_nvml.h"
#include "orchestrator/gpu_software.h"

namespace seatmark::orchestrator {

GpuBackends open_gpu_backends(const GpuOptions& opts) {
    GpuBackends b;
    NvmlOpen n = open_nvml(opts.nvml_library, opts.proc_root);
    b.status.push_back(std::move(n.status));
    DrmOpen d = open_drm(opts);
    b.status.push_back(std::move(d.status));
    b.hardware = n.sampler ? std::move(n.sampler) : std::move(d.sampler);
    b.status.push_back(software_status());
    return b;
}

}  // namespace seatmark::orchestrator
