#pragma once
// How the agent samples its host; what it sends, and when, is agent.cpp's job. One sample:
// the host's own figures and those of the sessions the orchestrator watches here, matched by
// pid (orchestrator/host_figures.h: /proc on Linux, Win32 on Windows), and GPU figures from the
// backends this platform has (open_agent_gpu). Every row keeps the label of its source.
//
// GPU rows, one source per figure:
//   device-wide   the hardware backend: NVML (libnvidia-ml.so.1 / nvml.dll) or, on Linux, DRM
//                 fdinfo; on Windows without NVML, the PDH GPU Engine counters (source "pdh")
//   per session   on Windows, PDH's per-process attribution (GPU Engine / GPU Process Memory,
//                 what Task Manager shows) replaces the hardware backend's, since under WDDM
//                 NVML has no per-process memory; else the hardware backend's; a session on a
//                 CPU renderer gets its process CPU time as its share (source "software")
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/join_protocol.h"
#include "orchestrator/gpu_telemetry.h"
#include "orchestrator/host_figures.h"

namespace seatmark::agent {

struct AgentGpu {
    orchestrator::GpuBackends device;                       // hardware backend (or none), every status
    std::unique_ptr<orchestrator::GpuSampler> per_process;  // Windows beside NVML: PDH; else null
};
// agent_gpu_posix.cpp: NVML, DRM fdinfo. agent_gpu_windows.cpp: NVML (device) and PDH.
AgentGpu open_agent_gpu();

class AgentSampler {
public:
    explicit AgentSampler(AgentGpu gpu);

    // One line: where the host and GPU figures come from, and why a backend does not work.
    std::string describe() const;

    struct Sample {
        std::vector<join::Sample> rows;
        std::vector<std::string> errors;  // sampler problems new since the last sample
    };
    Sample sample(int64_t t_ns, const std::vector<join::WatchEntry>& watch);

private:
    orchestrator::HostFigures host_;
    orchestrator::GpuTelemetry gpu_;
    std::unique_ptr<orchestrator::GpuSampler> per_process_;
    std::string per_process_detail_;
};

}  // namespace seatmark::agent
