// Sampling (/proc, GPU), the once-a-second status and the live projection (LiveSource).
#include "orchestrator/run_controller_impl.h"

namespace seatmark::orchestrator::run_detail {

namespace asio = boost::asio;
using namespace std::chrono_literals;

void Controller::sample() {
    int64_t t = now_ns();
    std::vector<store::SampleRow> rows;
    CpuTimes now = read_cpu_times();
    auto pct = cpu_percent(cpu_prev_, now);
    cpu_prev_ = now;
    if (!pct.empty()) {
        rows.push_back({t, std::nullopt, "proc", "host_cpu_pct", pct[0]});
        last_host_cpu_pct = pct[0];
        for (size_t i = 1; i < pct.size(); ++i)
            rows.push_back({t, std::nullopt, "proc", "core" + std::to_string(i - 1) + "_cpu_pct", pct[i]});
    }
    MemInfo mem = read_meminfo();
    rows.push_back({t, std::nullopt, "proc", "host_mem_used_bytes", double(mem.total_bytes - mem.available_bytes)});
    rows.push_back({t, std::nullopt, "proc", "host_load1", read_loadavg1()});
    for (auto& [id, s] : sessions_) {
        if (!s.alive() || !s.pid) continue;
        auto u = proc_usage_.read(s.pid);
        if (!u) continue;
        if (s.last_cpu_s >= 0 && t > s.last_cpu_t) {
            s.last_cpu_pct = 100.0 * (u->cpu_seconds - s.last_cpu_s) / (double(t - s.last_cpu_t) * 1e-9);
            rows.push_back({t, static_cast<int>(id), "proc", "cpu_pct", s.last_cpu_pct});
        }
        s.last_cpu_s = u->cpu_seconds;
        s.last_cpu_t = t;
        s.rss_bytes = u->rss_bytes;
        rows.push_back({t, static_cast<int>(id), "proc", "rss_bytes", double(u->rss_bytes)});
    }
    proc_usage_.sweep();
    if (gpu_) {
        std::vector<GpuClient> clients;
        for (const auto& [id, s] : sessions_)
            if (s.alive() && s.pid)
                clients.push_back({static_cast<int>(id), s.pid,
                                   !s.hello ? Renderer::unknown : s.software ? Renderer::software : Renderer::gpu,
                                   s.last_cpu_t == t ? std::optional<double>(s.last_cpu_s) : std::nullopt});
        last_gpu_ = gpu_->sample(t, clients);
        for (const auto& e : last_gpu_.errors) store_->add_event({t, std::nullopt, "sampler-error", "gpu: " + e});
        auto g = gpu_sample_rows(last_gpu_);
        rows.insert(rows.end(), g.begin(), g.end());
    }
    store_->add_samples(std::move(rows));
}


void Controller::on_tick() {
    int64_t t = now_ns();
    // Hangs: no message within the heartbeat timeout (the startup timeout before the first one).
    if (phase_ != Phase::done) {
        for (auto& [id, s] : sessions_) {
            if (!s.alive()) continue;
            double limit = s.hello ? plan_.heartbeat_timeout_s : std::max(startup_timeout_s, plan_.heartbeat_timeout_s);
            if (double(t - s.last_seen_ns) * 1e-9 > limit)
                fail_session(s, SessionEnd::hang,
                             "no heartbeat for " + std::to_string(int(limit)) + " s; killed", SIGKILL);
        }
        // A session that exited but whose socket never closed: stop waiting for it.
        for (auto& [id, s] : sessions_)
            if (s.exited && !s.finalized && double(t - s.exited_ns) * 1e-9 > exit_drain_s) finalize(s);
    }
    if (phase_ == Phase::running) machine_.poll();  // starting -> settling, judging, the decided rule
    if (phase_ == Phase::stopping && double(t - stop_started_ns_) * 1e-9 > stop_grace_s) {
        for (auto& [id, s] : sessions_)
            if (s.proc && s.proc->running()) s.proc->signal_group(SIGKILL);
    }
    check_store(t);
    // Samples at 1 Hz (docs/design.md: 1-4 Hz): with hundreds of sessions, reading /proc is the sampler's cost.
    if (t - last_sample >= 1'000'000'000) {
        last_sample = t;
        sample();
    }
    if (t - last_status >= 1'000'000'000 && phase_ != Phase::done) {
        double dt = last_status ? double(t - last_status) * 1e-9 : 1.0;
        last_status = t;
        StatusSnapshot st;
        st.step = machine_.has_step() ? machine_.step().index + 1 : 0;
        st.steps = machine_.planned_steps();
        st.target = current_target();
        st.alive = alive_count();
        st.phase = phase_name();
        st.phase_left_s = machine_.phase_end_ns() ? std::max(0.0, double(machine_.phase_end_ns() - t) * 1e-9) : 0.0;
        std::vector<double> fps;
        for (auto& [id, s] : sessions_)
            if (s.alive()) {
                fps.push_back(double(s.recent_frames) / dt);
                s.recent_frames = 0;
            }
        st.fps_median = fps.empty() ? 0 : stats::median(fps);
        st.p95_ms = recent_intervals_.empty() ? NAN : stats::percentile_nearest_rank(recent_intervals_, 95);
        recent_intervals_.clear();
        st.passed = density().sessions;
        st.failed_steps = 0;
        for (const auto& o : outcomes_) st.failed_steps += !o.verdict.pass;
        st.elapsed_s = double(t - run_start_ns_) * 1e-9;
        out_.status(st);
    }
    if (phase_ == Phase::done) return;
    tick_.expires_after(250ms);
    tick_.async_wait([this](boost::system::error_code ec) {
        if (!ec) on_tick();
    });
}


core::LiveState Controller::live_state() {
    core::LiveState st;
    int64_t t = now_ns();
    st.plan = plan_.name;
    st.db_path = db_path_;
    st.host = read_host_identity().hostname;
    st.status = phase_ == Phase::done       ? std::string(store::to_string(final_status_))
                : phase_ == Phase::stopping ? "stopping"
                                            : "running";
    st.elapsed_s = double(t - run_start_ns_) * 1e-9;
    st.started_unix_ns = unix_now_ns() - (t - run_start_ns_);
    st.step = machine_.has_step() ? machine_.step().index + 1 : 0;
    st.steps = machine_.planned_steps();
    st.target = current_target();
    st.alive = alive_count();
    st.phase = phase_name();
    st.phase_left_s = machine_.phase_end_ns() ? std::max(0.0, double(machine_.phase_end_ns() - t) * 1e-9) : 0.0;
    st.max_density_so_far = density().sessions;
    st.host_cpu_pct = last_host_cpu_pct;
    MemInfo mem = read_meminfo();
    st.host_mem_total_bytes = double(mem.total_bytes);
    st.host_mem_used_bytes = double(mem.total_bytes - mem.available_bytes);
    st.gpu_util_pct = st.gpu_mem_used_bytes = st.gpu_mem_total_bytes = NAN;
    st.gpu_backend = gpu_ ? std::string(gpu_->backend()) : "none";
    if (!last_gpu_.devices.empty()) {
        // Host totals over every GPU (utilization averaged), as the samples' unprefixed rows are.
        double util = 0, used = 0, total = 0;
        int n_util = 0;
        for (const auto& d : last_gpu_.devices) {
            if (d.util_pct) util += *d.util_pct, ++n_util;
            used += d.mem_used_bytes.value_or(0);
            total += d.mem_total_bytes.value_or(0);
        }
        if (n_util) st.gpu_util_pct = util / n_util;
        if (total > 0) st.gpu_mem_used_bytes = used, st.gpu_mem_total_bytes = total;
    }
    // Per-session figures over the last few seconds of frames.
    const int64_t span_ns = 3'000'000'000;
    for (const auto& [id, s] : sessions_) {
        core::LiveSession ls;
        ls.id = id;
        ls.profile = s.profile_name;
        ls.pid = s.pid;
        ls.state = s.finalized || s.exited || s.reason != SessionEnd::running
                       ? std::string(store::to_string(s.reason == SessionEnd::running ? SessionEnd::ok : s.reason))
                   : s.stop_requested ? "stopping"
                   : s.hello          ? "running"
                                      : "starting";
        ls.device = s.device;
        ls.software = s.software;
        ls.frames = s.received;
        std::vector<FrameRecord> recent;
        for (auto it = s.step_frames.rbegin(); it != s.step_frames.rend() && it->t_begin_ns >= t - span_ns; ++it)
            recent.push_back(*it);
        auto sum = stats::summarize(recent, core::active_seconds(recent));
        ls.fps = recent.empty() ? NAN : sum.fps;
        ls.p95_ms = recent.empty() ? NAN : sum.p95_ms;
        ls.sla_ok = recent.empty() || (s.sla && sla_violations(sum, *s.sla).empty());
        ls.cpu_pct = s.last_cpu_pct;
        ls.rss_bytes = s.rss_bytes;
        ls.gpu_share_pct = NAN;
        if (const auto* g = last_gpu_.session(static_cast<int>(id)); g && g->share_pct) {
            ls.gpu_share_pct = *g->share_pct;
            ls.gpu_share_source = g->source;
        }
        st.sessions.push_back(std::move(ls));
    }
    for (const auto& o : outcomes_) {
        core::LiveStep ls;
        ls.index = o.index;
        ls.sessions = o.verdict.target;
        ls.pass = o.verdict.pass;
        ls.fps_median = o.verdict.fps_median;
        ls.p95_worst_ms = o.verdict.p95_worst_ms;
        ls.reason = o.verdict.reasons.empty() ? "" : o.verdict.reasons.front();
        st.finished_steps.push_back(ls);
    }
    st.frames_stored = store_ ? store_->frames_stored() : 0;
    st.frames_lost = lost_total_;
    return st;
}

std::vector<core::LiveFrame> Controller::live_frames(uint32_t session, uint64_t since, size_t max) {
    std::vector<core::LiveFrame> out;
    auto it = sessions_.find(session);
    if (it == sessions_.end()) return out;
    const auto& f = it->second.step_frames;
    // The newest `max` frames at or after `since`, oldest first.
    size_t first = f.size();
    while (first > 0 && f.size() - first < max && f[first - 1].seq >= since) --first;
    for (size_t i = first; i < f.size(); ++i)
        out.push_back({f[i].seq, f[i].t_begin_ns, f[i].interval_ns >= 0 ? double(f[i].interval_ns) * 1e-6 : NAN});
    return out;
}


}  // namespace seatmark::orchestrator::run_detail
