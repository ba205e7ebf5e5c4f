// A host's own figures as store rows (orchestrator/host_figures.h).
#include "orchestrator/host_figures.h"

#include <algorithm>
#include <string>

namespace seatmark::orchestrator {

HostFigures::HostFigures() : cpu_prev_(read_cpu_times()) {}

HostFigures::Sample HostFigures::sample(int64_t t, const std::vector<WatchedProcess>& watched) {
    Sample out;
    auto& rows = out.rows;
    const std::string src = source();
    CpuTimes now = read_cpu_times();
    auto pct = cpu_percent(cpu_prev_, now);
    // The busy share of what this run may use (issue 29): on a host pinned to 1 CPU of 2, the
    // whole machine's figure halves the truth and attribution then sees room that is not there.
    std::optional<double> host_pct;
    if (capacity_.quota_binds() && !capacity_.usage_path.empty()) {
        const auto ns = read_cgroup_cpu_ns(capacity_.usage_path);
        if (ns && cgroup_prev_ns_ && t > cgroup_prev_t_ && *ns >= *cgroup_prev_ns_)
            host_pct = std::min(100.0, 100.0 * double(*ns - *cgroup_prev_ns_) / (double(t - cgroup_prev_t_) * capacity_.cpus));
        cgroup_prev_ns_ = ns;
        cgroup_prev_t_ = t;
    } else if (!pct.empty() && capacity_.limited()) {
        // The allowed cores' busy time against the capacity (a quota without a readable cgroup
        // CPU time counts other tenants' work on those cores too: an upper bound).
        const double cores = capacity_.allowed.empty() ? capacity_.online : capacity_.allowed.size();
        host_pct = std::min(100.0, allowed_cpu_percent(cpu_prev_, now, capacity_.allowed) * cores / capacity_.cpus);
    } else if (!pct.empty()) {
        host_pct = pct[0];
    }
    if (host_pct) {
        rows.push_back({t, std::nullopt, src, "host_cpu_pct", *host_pct});
        host_cpu_pct_ = *host_pct;
    }
    if (!pct.empty()) {
        for (size_t i = 1; i < pct.size(); ++i)
            rows.push_back({t, std::nullopt, src, "core" + std::to_string(i - 1) + "_cpu_pct", pct[i]});
    }
    cpu_prev_ = now;
    const MemInfo mem = read_meminfo();
    if (mem.total_bytes)
        rows.push_back({t, std::nullopt, src, "host_mem_used_bytes", double(mem.total_bytes - mem.available_bytes)});
    // Windows has no load average: no row rather than a NaN one.
    if (const double load = read_loadavg1(); std::isfinite(load)) rows.push_back({t, std::nullopt, src, "host_load1", load});
    // Run-queue length now (the load average trails it by a minute); minus this sampler itself.
    if (now.procs_running >= 1) rows.push_back({t, std::nullopt, src, "host_run_queue", now.procs_running - 1});

    std::map<pid_t, Prev> next;
    for (const auto& w : watched) {
        if (!w.pid) continue;
        auto u = usage_.read(w.pid);
        if (!u) continue;  // gone (an exited process reads nothing)
        ProcessFigures f{w.session_id, w.pid, std::nullopt, u->cpu_seconds, u->rss_bytes};
        if (auto p = prev_.find(w.pid); p != prev_.end() && t > p->second.t_ns) {
            f.cpu_pct = 100.0 * (u->cpu_seconds - p->second.cpu_s) / (double(t - p->second.t_ns) * 1e-9);
            rows.push_back({t, w.session_id, src, "cpu_pct", *f.cpu_pct});
        }
        rows.push_back({t, w.session_id, src, "rss_bytes", double(u->rss_bytes)});
        next[w.pid] = {t, u->cpu_seconds};
        out.processes.push_back(f);
    }
    usage_.sweep();
    prev_ = std::move(next);
    return out;
}

}  // namespace seatmark::orchestrator
