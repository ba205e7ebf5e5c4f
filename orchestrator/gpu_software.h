#pragma once
// The software-renderer backend: sessions on a CPU Vulkan device (lavapipe)
// render on the host's CPUs, so a session's share of that "device" is its
// process CPU time over the host's CPU capacity:
//   share % = 100 x delta(utime + stime) / (delta(wall time) x online CPUs)
// Labelled 'software' wherever it is stored. It reports no device-wide figures:
// no GPU is claimed where there is none.
#include <map>

#include "orchestrator/gpu_sampler.h"
#include "orchestrator/host_proc.h"

namespace seatmark::orchestrator {

class SoftwareSampler final : public GpuSampler {
public:
    // cpus: the capacity shares are taken of; 0 = the CPUs online now.
    explicit SoftwareSampler(unsigned cpus = 0);
    std::string_view source() const override { return "software"; }
    // A client's first sample only sets its baseline (no share yet); gone processes are left out.
    GpuSnapshot sample(int64_t t_ns, const std::vector<GpuClient>& clients) override;
    unsigned cpus() const { return cpus_; }

private:
    struct Prev {
        int64_t t_ns = 0;
        double cpu_s = 0;
    };
    unsigned cpus_;
    std::map<pid_t, Prev> prev_;
    ProcessUsageReader usage_;
};

// The software backend's line for `seatmark probe` and the run's events (always available).
BackendStatus software_status();

}  // namespace seatmark::orchestrator
