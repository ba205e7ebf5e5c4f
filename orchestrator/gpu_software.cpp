#include "orchestrator/gpu_software.h"

#include <algorithm>
#include <string>
#include <thread>

#include "orchestrator/host_proc.h"

namespace seatmark::orchestrator {

SoftwareSampler::SoftwareSampler(unsigned cpus)
    : cpus_(cpus ? cpus : std::max(1u, std::thread::hardware_concurrency())) {}

BackendStatus software_status() {
    BackendStatus s;
    s.name = "software";
    s.available = true;
    s.detail = "per-session share = process CPU time over " + std::to_string(SoftwareSampler().cpus()) +
               " CPU(s), for sessions on a CPU renderer (lavapipe); no device figures";
    return s;
}

GpuSnapshot SoftwareSampler::sample(int64_t t_ns, const std::vector<GpuClient>& clients) {
    GpuSnapshot snap;
    snap.t_ns = t_ns;
    snap.source = "software";
    std::map<pid_t, Prev> next;
    for (const auto& c : clients) {
        std::optional<double> cpu = c.cpu_seconds;
        if (!cpu)
            if (auto u = usage_.read(c.pid)) cpu = u->cpu_seconds;
        if (!cpu) continue;  // gone
        next[c.pid] = {t_ns, *cpu};
        auto p = prev_.find(c.pid);
        if (p == prev_.end() || t_ns <= p->second.t_ns) continue;
        double wall_s = double(t_ns - p->second.t_ns) * 1e-9;
        double cpu_s = std::max(0.0, *cpu - p->second.cpu_s);
        GpuProcessSample s;
        s.session_id = c.session_id;
        s.pid = c.pid;
        s.source = "software";
        s.share_pct = std::clamp(100.0 * cpu_s / (wall_s * cpus_), 0.0, 100.0);
        snap.processes.push_back(s);
    }
    usage_.sweep();
    prev_ = std::move(next);
    return snap;
}

}  // namespace seatmark::orchestrator
