// The agent's GPU backends on Windows: NVML (nvml.dll, loaded as libnvidia-ml.so.1 is on Linux)
// for device figures, and the PDH GPU counters for per-process attribution (any WDDM 2 driver:
// NVIDIA, AMD, Intel). Without NVML, PDH gives the device figures too.
#include "agent/agent_sampler.h"
#include "orchestrator/gpu_nvml.h"
#include "orchestrator/gpu_pdh.h"
#include "orchestrator/gpu_software.h"

namespace seatmark::agent {

AgentGpu open_agent_gpu() {
    AgentGpu g;
    orchestrator::NvmlOpen n = orchestrator::open_nvml();
    orchestrator::pdh::PdhOpen p = orchestrator::pdh::open_pdh();
    g.device.status = {n.status, p.status, orchestrator::software_status()};
    if (n.sampler) {
        g.device.hardware = std::move(n.sampler);
        g.per_process = std::move(p.sampler);
    } else {
        g.device.hardware = std::move(p.sampler);
    }
    return g;
}

}  // namespace seatmark::agent
