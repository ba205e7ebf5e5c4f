// GpuSnapshot's lookup, apart from the backend factory (gpu_sampler.cpp) so the Windows build
// (cmake/windows_build.cmake) takes the samplers it has without the Linux backends.
#include "orchestrator/gpu_sampler.h"

namespace seatmark::orchestrator {

const GpuProcessSample* GpuSnapshot::session(int session_id) const {
    for (const auto& p : processes)
        if (p.session_id == session_id) return &p;
    return nullptr;
}

}  // namespace seatmark::orchestrator
