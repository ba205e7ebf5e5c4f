// The live projection (orchestrator/live_projection.h).
#include "orchestrator/live_projection.h"

#include <algorithm>
#include <cmath>

#include "common/clock.h"
#include "core/stats.h"
#include "core/verdict.h"
#include "orchestrator/host_proc.h"

namespace seatmark::orchestrator {

std::string live_session_state(const Session& s) {
    if (s.reason != store::SessionEnd::running || s.state == SessionState::exited || s.state == SessionState::ended)
        return std::string(store::to_string(s.reason == store::SessionEnd::running ? store::SessionEnd::ok : s.reason));
    switch (s.state) {
        case SessionState::stopping: return "stopping";
        case SessionState::running: return "running";
        default: return "starting";
    }
}

core::LiveState project_live(const LiveView& v, int64_t t) {
    core::LiveState st;
    st.plan = v.plan->name;
    st.db_path = v.db_path;
    st.host = v.host;
    st.status = v.status;
    st.elapsed_s = double(t - v.run_start_ns) * 1e-9;
    st.started_unix_ns = unix_now_ns() - (t - v.run_start_ns);
    const StepMachine& m = *v.machine;
    st.step = m.has_step() ? m.step().index + 1 : 0;
    st.steps = m.planned_steps();
    st.target = m.has_step() ? m.step().target : 0;
    st.alive = v.sessions->alive();
    st.phase = v.phase;
    st.phase_left_s = m.phase_end_ns() ? std::max(0.0, double(m.phase_end_ns() - t) * 1e-9) : 0.0;
    st.max_density_so_far = v.max_density;
    st.host_cpu_pct = v.sampler ? v.sampler->host_cpu_pct() : NAN;
    MemInfo mem = read_meminfo();
    st.host_mem_total_bytes = double(mem.total_bytes);
    st.host_mem_used_bytes = double(mem.total_bytes - mem.available_bytes);
    st.gpu_util_pct = st.gpu_mem_used_bytes = st.gpu_mem_total_bytes = NAN;
    st.gpu_backend = v.sampler && v.sampler->gpu() ? std::string(v.sampler->gpu()->backend()) : "none";
    static const GpuSnapshot no_gpu;
    const GpuSnapshot& gpu = v.sampler ? v.sampler->gpu_snapshot() : no_gpu;
    if (!gpu.devices.empty()) {
        // Host totals over every GPU (utilization averaged), as the samples' unprefixed rows are.
        double util = 0, used = 0, total = 0;
        int n_util = 0;
        for (const auto& d : gpu.devices) {
            if (d.util_pct) util += *d.util_pct, ++n_util;
            used += d.mem_used_bytes.value_or(0);
            total += d.mem_total_bytes.value_or(0);
        }
        if (n_util) st.gpu_util_pct = util / n_util;
        if (total > 0) st.gpu_mem_used_bytes = used, st.gpu_mem_total_bytes = total;
    }
    // Per-session figures over the last few seconds of frames.
    const int64_t span_ns = 3'000'000'000;
    for (const Session* sp : v.sessions->all()) {
        const Session& s = *sp;
        core::LiveSession ls;
        ls.id = s.id;
        ls.profile = s.profile_name;
        ls.pid = s.pid;
        ls.state = live_session_state(s);
        ls.device = s.device;
        ls.software = s.software;
        ls.frames = s.frames.received;
        std::vector<FrameRecord> recent;
        for (auto it = s.live_frames.rbegin(); it != s.live_frames.rend() && it->t_begin_ns >= t - span_ns; ++it)
            recent.push_back(*it);
        auto sum = stats::summarize(recent, core::active_seconds(recent));
        ls.fps = recent.empty() ? NAN : sum.fps;
        ls.p95_ms = recent.empty() ? NAN : sum.p95_ms;
        ls.sla_ok = recent.empty() || (s.sla && sla_violations(sum, *s.sla).empty());
        ls.host = s.host;  // a joined session's own host; "" (the run's host) for a spawned one
        ls.cpu_pct = s.cpu_pct;
        ls.rss_bytes = s.rss_bytes;
        ls.figures_unavailable = s.figures_unavailable;
        if (ls.figures_unavailable.empty() && !ls.rss_bytes)
            ls.figures_unavailable = !s.alive() ? "not sampled before it ended"
                                     : s.remote ? "not sampled yet by the agent on host " + s.host
                                                : "not sampled yet";
        ls.gpu_share_pct = NAN;
        if (const auto* g = gpu.session(static_cast<int>(s.id)); g && g->share_pct) {
            ls.gpu_share_pct = *g->share_pct;
            ls.gpu_share_source = g->source;
        }
        if (const store::EndpointLogonRow* l = v.source ? v.source->logon(s.id) : nullptr) {
            core::LiveEndpoint e;
            e.user = l->user;
            e.launcher = l->launcher;
            e.codec = l->codec;
            e.fault = l->fault;
            if (l->logon_ms) e.logon_ms = *l->logon_ms;
            e.bytes_per_s = l->bytes_per_s;
            if (const core::EndpointSeries* es = v.source->endpoint(s.id)) {
                e.arrivals = es->arrivals.size();
                // The same recent frames as the session's own FPS: one span, both sides.
                std::vector<FrameRecord> by_begin(recent.rbegin(), recent.rend());
                const auto f = core::endpoint_figures(by_begin, es->arrivals, es->ssim, double(span_ns) * 1e-9);
                if (!recent.empty()) {
                    e.fps = f.fps;
                    e.delivered_ratio = f.delivered_ratio;
                    e.latency_p95_ms = f.latency_p95_ms;
                    e.ssim_mean = f.ssim_mean;
                }
            }
            ls.endpoint = std::move(e);
        }
        st.sessions.push_back(std::move(ls));
    }
    for (const auto& o : v.outcomes) {
        core::LiveStep ls;
        ls.index = o.index;
        ls.sessions = o.verdict.target;
        ls.pass = o.verdict.pass;
        ls.fps_median = o.verdict.fps_median;
        ls.p95_worst_ms = o.verdict.p95_worst_ms;
        ls.reason = o.verdict.reasons.empty() ? "" : o.verdict.reasons.front();
        st.finished_steps.push_back(ls);
    }
    st.frames_stored = v.frames_stored;
    st.frames_lost = v.frames_lost;
    return st;
}

std::vector<core::LiveFrame> project_frames(const Session& s, uint64_t since, size_t max) {
    std::vector<core::LiveFrame> out;
    const auto& f = s.live_frames;
    size_t first = f.size();
    while (first > 0 && f.size() - first < max && f[first - 1].seq >= since) --first;
    for (size_t i = first; i < f.size(); ++i)
        out.push_back({f[i].seq, f[i].t_begin_ns, f[i].interval_ns >= 0 ? double(f[i].interval_ns) * 1e-6 : NAN});
    return out;
}

}  // namespace seatmark::orchestrator
