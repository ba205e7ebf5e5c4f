#include "orchestrator/gpu_pdh.h"

namespace seatmark::orchestrator::pdh {

// The counters exist only on Windows (WDDM); Linux hosts have NVML and DRM fdinfo.
PdhOpen open_pdh() {
    PdhOpen o;
    o.status.name = "pdh";
    o.status.detail = "not available: the GPU Engine counters are Windows performance counters";
    return o;
}

}  // namespace seatmark::orchestrator::pdh
