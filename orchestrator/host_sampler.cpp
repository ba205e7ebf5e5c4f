// The host sampler (orchestrator/host_sampler.h).
#include "orchestrator/host_sampler.h"

namespace seatmark::orchestrator {

HostSampler::HostSampler(std::unique_ptr<GpuTelemetry> gpu) : gpu_(std::move(gpu)), cpu_prev_(read_cpu_times()) {}

HostSampler::Sample HostSampler::sample(int64_t t, SessionTable& sessions) {
    Sample out;
    auto& rows = out.rows;
    CpuTimes now = read_cpu_times();
    auto pct = cpu_percent(cpu_prev_, now);
    cpu_prev_ = now;
    if (!pct.empty()) {
        rows.push_back({t, std::nullopt, "proc", "host_cpu_pct", pct[0]});
        host_cpu_pct_ = pct[0];
        for (size_t i = 1; i < pct.size(); ++i)
            rows.push_back({t, std::nullopt, "proc", "core" + std::to_string(i - 1) + "_cpu_pct", pct[i]});
    }
    MemInfo mem = read_meminfo();
    rows.push_back({t, std::nullopt, "proc", "host_mem_used_bytes", double(mem.total_bytes - mem.available_bytes)});
    rows.push_back({t, std::nullopt, "proc", "host_load1", read_loadavg1()});
    // Run-queue length now (the load average trails it by a minute); minus this sampler itself.
    if (now.procs_running >= 1) rows.push_back({t, std::nullopt, "proc", "host_run_queue", now.procs_running - 1});
    for (Session* sp : sessions.all()) {
        Session& s = *sp;
        if (!s.alive() || !s.pid) continue;
        auto u = proc_usage_.read(s.pid);
        if (!u) continue;
        if (s.cpu_s >= 0 && t > s.cpu_t) {
            s.cpu_pct = 100.0 * (u->cpu_seconds - s.cpu_s) / (double(t - s.cpu_t) * 1e-9);
            rows.push_back({t, static_cast<int>(s.id), "proc", "cpu_pct", s.cpu_pct});
        }
        s.cpu_s = u->cpu_seconds;
        s.cpu_t = t;
        s.rss_bytes = u->rss_bytes;
        rows.push_back({t, static_cast<int>(s.id), "proc", "rss_bytes", double(u->rss_bytes)});
    }
    proc_usage_.sweep();
    if (gpu_) {
        std::vector<GpuClient> clients;
        for (const Session* s : sessions.all())
            if (s->alive() && s->pid)
                clients.push_back({static_cast<int>(s->id), s->pid,
                                   !s->said_hello() ? Renderer::unknown : s->software ? Renderer::software : Renderer::gpu,
                                   s->cpu_t == t ? std::optional<double>(s->cpu_s) : std::nullopt});
        last_gpu_ = gpu_->sample(t, clients);
        for (const auto& e : last_gpu_.errors) out.errors.push_back("gpu: " + e);
        auto g = gpu_sample_rows(last_gpu_);
        rows.insert(rows.end(), g.begin(), g.end());
    }
    return out;
}

}  // namespace seatmark::orchestrator
