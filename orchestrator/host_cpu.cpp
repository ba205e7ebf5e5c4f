// The busy share between two CPU readings: the same arithmetic on Linux's /proc/stat jiffies
// (host_proc_posix.cpp) and Windows' per-processor times (host_proc_windows.cpp).
#include "orchestrator/host_proc.h"

namespace seatmark::orchestrator {

std::vector<double> cpu_percent(const CpuTimes& a, const CpuTimes& b) {
    std::vector<double> out;
    for (size_t i = 0; i < a.total.size() && i < b.total.size(); ++i) {
        double dt = double(b.total[i] - a.total[i]);
        out.push_back(dt > 0 ? 100.0 * double(b.busy[i] - a.busy[i]) / dt : 0.0);
    }
    return out;
}

}  // namespace seatmark::orchestrator
