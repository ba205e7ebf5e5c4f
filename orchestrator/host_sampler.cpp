// The host sampler (orchestrator/host_sampler.h).
#include "orchestrator/host_sampler.h"

namespace seatmark::orchestrator {

HostSampler::HostSampler(std::unique_ptr<GpuTelemetry> gpu) : gpu_(std::move(gpu)) {}

HostSampler::Sample HostSampler::sample(int64_t t, SessionTable& sessions) {
    Sample out;
    std::vector<WatchedProcess> watched;
    // A remote (joined) session's process is on its own host: that host's agent samples it.
    for (const Session* s : sessions.all())
        if (s->alive() && s->pid && !s->remote) watched.push_back({static_cast<int>(s->id), s->pid});
    auto host = host_.sample(t, watched);
    out.rows = std::move(host.rows);
    // The sessions keep their latest figures for the live view and the software GPU share.
    for (const auto& f : host.processes) {
        Session* s = sessions.find(static_cast<uint32_t>(f.session_id));
        if (!s) continue;
        sessions.process_figures(*s, f.cpu_pct, f.rss_bytes);
        s->cpu_s = f.cpu_seconds;
        s->cpu_t = t;
    }
    if (gpu_) {
        std::vector<GpuClient> clients;
        for (const Session* s : sessions.all())
            if (s->alive() && s->pid && !s->remote)
                clients.push_back({static_cast<int>(s->id), s->pid,
                                   !s->said_hello() ? Renderer::unknown : s->software ? Renderer::software : Renderer::gpu,
                                   s->cpu_t == t ? std::optional<double>(s->cpu_s) : std::nullopt});
        last_gpu_ = gpu_->sample(t, clients);
        for (const auto& e : last_gpu_.errors) out.errors.push_back("gpu: " + e);
        auto g = gpu_sample_rows(last_gpu_);
        out.rows.insert(out.rows.end(), g.begin(), g.end());
    }
    return out;
}

}  // namespace seatmark::orchestrator
