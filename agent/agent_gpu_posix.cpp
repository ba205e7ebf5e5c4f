// The agent's GPU backends on Linux: the orchestrator's (NVML, else DRM fdinfo; software share).
#include "agent/agent_sampler.h"
#include "orchestrator/gpu_sampler.h"

namespace seatmark::agent {

AgentGpu open_agent_gpu() { return {orchestrator::open_gpu_backends(), nullptr}; }

}  // namespace seatmark::agent
