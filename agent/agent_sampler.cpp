// The agent's sampling (agent/agent_sampler.h).
#include "agent/agent_sampler.h"

#include <algorithm>
#include <set>

namespace seatmark::agent {

using namespace seatmark::orchestrator;

AgentSampler::AgentSampler(AgentGpu gpu) : gpu_(std::move(gpu.device)), per_process_(std::move(gpu.per_process)) {
    if (per_process_)
        for (const auto& s : gpu_.status())
            if (s.name == per_process_->source()) per_process_detail_ = s.detail;
}

std::string AgentSampler::describe() const {
    std::string d = std::string("host figures from ") + host_.source() + "; GPU figures from " + gpu_.describe();
    if (per_process_) d += "; per-session GPU figures from " + std::string(per_process_->source()) + ": " + per_process_detail_;
    return d;
}

AgentSampler::Sample AgentSampler::sample(int64_t t, const std::vector<join::WatchEntry>& watch) {
    Sample out;
    std::vector<WatchedProcess> watched;
    for (const auto& w : watch) watched.push_back({static_cast<int>(w.session_id), static_cast<pid_t>(w.pid)});
    auto host = host_.sample(t, watched);
    std::vector<store::SampleRow> rows = std::move(host.rows);

    std::vector<GpuClient> clients;
    for (const auto& w : watch) {
        GpuClient c{static_cast<int>(w.session_id), static_cast<pid_t>(w.pid),
                    w.renderer == 2 ? Renderer::software : w.renderer == 1 ? Renderer::gpu : Renderer::unknown, std::nullopt};
        for (const auto& f : host.processes)
            if (f.pid == c.pid) c.cpu_seconds = f.cpu_seconds;  // read just now: not read twice
        clients.push_back(c);
    }
    GpuSnapshot snap = gpu_.sample(t, clients);
    if (per_process_) {
        GpuSnapshot pp = per_process_->sample(t, clients);
        std::set<int> attributed;
        for (const auto& p : pp.processes)
            if (p.session_id >= 0) attributed.insert(p.session_id);
        std::erase_if(snap.processes, [&](const GpuProcessSample& p) { return attributed.count(p.session_id) > 0; });
        for (auto& p : pp.processes)
            if (p.session_id >= 0) snap.processes.push_back(std::move(p));
        for (auto& e : pp.errors) snap.errors.push_back(std::string(per_process_->source()) + ": " + e);
    }
    for (const auto& e : snap.errors) out.errors.push_back("gpu: " + e);
    auto g = gpu_sample_rows(snap);
    rows.insert(rows.end(), g.begin(), g.end());

    out.rows.reserve(rows.size());
    for (auto& r : rows)
        out.rows.push_back({r.session_id ? *r.session_id : -1, std::move(r.source), std::move(r.metric), r.value});
    return out;
}

}  // namespace seatmark::agent
