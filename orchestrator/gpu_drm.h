#pragma once
// AMD and Intel GPUs (amdgpu, i915, xe; any driver printing DRM usage stats)
// through /proc/PID/fdinfo: per session, the busiest engine's busy share and
// the memory its DRM clients hold (gpu_drm_fdinfo.h). Device-wide figures come
// from amdgpu's sysfs files where present (gpu_busy_percent, mem_info_vram_*);
// i915 and xe give none here. Only reads: no setting of a card changes.
#include <memory>
#include <string>

#include "orchestrator/gpu_drm_fdinfo.h"
#include "orchestrator/gpu_sampler.h"

namespace seatmark::orchestrator {

struct DrmOpen {
    std::unique_ptr<GpuSampler> sampler;  // null when no DRM device prints usage stats here
    BackendStatus status;                 // name "drm"; the reason when unavailable
};

// Opens each render node under opts.dev_dri once and reads its own fdinfo to learn whether
// the driver prints usage stats. Reasons when not: "no DRM devices: ...", "no permission: ...",
// "no fdinfo keys found for any DRM client: ...".
DrmOpen open_drm(const GpuOptions& opts);

// The DRM file descriptors of one process (fds linked into /dev/dri/) and their fdinfo.
DrmReading read_drm_fds(pid_t pid, const std::string& proc_root = "/proc");

// A sampler over `proc_root` (tests pass a fixture tree), device figures from `sys_root`
// for the devices named by their drm-pdev.
std::unique_ptr<GpuSampler> make_drm_sampler(const std::string& proc_root, const std::string& sys_root,
                                             std::vector<std::pair<std::string, std::string>> pdev_driver = {});

}  // namespace seatmark::orchestrator
