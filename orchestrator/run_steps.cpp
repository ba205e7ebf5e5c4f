// The step machine (ramp, settle, windows, repeats, stop rule) and judging with core/step_rules.h.
#include "orchestrator/run_controller_impl.h"

namespace seatmark::orchestrator::run_detail {

namespace asio = boost::asio;
using namespace std::chrono_literals;

void Controller::begin_step(size_t k) {
    step_ = k;
    uint32_t target = plan_.steps[k];
    step_start_ns_ = now_ns();
    step_failures_.clear();
    window_verdicts_.clear();
    pending_.clear();
    for (auto& [id, s] : sessions_) s.step_frames.clear();
    // Failed sessions are replaced, so every step runs its full target of live sessions.
    for (uint32_t alive = alive_count(); alive < target; ++alive) spawn(next_id_++);
    store_->add_event({step_start_ns_, std::nullopt, "step-begin",
                       "step " + std::to_string(k + 1) + " of " + std::to_string(plan_.steps.size()) + ": " +
                           std::to_string(target) + " sessions"});
    phase_ = Phase::starting;
    phase_end_ns_ = step_start_ns_ + int64_t(startup_timeout_s * 1e9);
    live_event(core::StepBeginEvent{uint32_t(k + 1), uint32_t(plan_.steps.size()), target});
}

uint32_t Controller::alive_count() const {
    uint32_t n = 0;
    for (const auto& [id, s] : sessions_) n += s.alive();
    return n;
}

void Controller::after_start_wait() {
    phase_ = Phase::settling;
    phase_end_ns_ = now_ns() + int64_t(plan_.settle_s * 1e9);
    step_timer_.expires_after(std::chrono::nanoseconds(int64_t(plan_.settle_s * 1e9)));
    step_timer_.async_wait([this](boost::system::error_code ec) {
        if (!ec && phase_ == Phase::settling) measure_window(0);
    });
}

void Controller::measure_window(uint32_t repeat) {
    phase_ = Phase::measuring;
    int64_t ws = now_ns();
    if (repeat == 0) measure_start_ns_ = ws;
    window_cpu0_ = process_cpu_seconds();
    phase_end_ns_ = ws + int64_t(plan_.window_s * 1e9);
    store::StepInfo si;
    si.idx = static_cast<int>(step_);
    si.repeat = static_cast<int>(repeat);
    si.target_sessions = static_cast<int>(plan_.steps[step_]);
    si.started_ns = step_start_ns_;
    store_->begin_step(si);
    step_timer_.expires_after(std::chrono::nanoseconds(int64_t(plan_.window_s * 1e9)));
    step_timer_.async_wait([this, repeat, ws](boost::system::error_code ec) {
        if (ec || phase_ != Phase::measuring) return;
        int64_t we = now_ns();
        measured_cpu_s_ += process_cpu_seconds() - window_cpu0_;
        measured_wall_s_ += double(we - ws) * 1e-9;
        bool last = repeat + 1 >= plan_.repeats;
        if (last) measure_end_ns_ = we;
        // Frames arrive a little after they begin (fence, batching): judge once they are in
        // (judge_ready, on each tick).
        pending_.push_back({repeat, ws, we, last});
        if (!last) measure_window(repeat + 1);
    });
}

std::vector<core::SessionSpan> Controller::spans() const {
    std::vector<core::SessionSpan> out;
    out.reserve(sessions_.size());
    for (const auto& [id, s] : sessions_) {
        core::SessionSpan sp{id, s.profile_name, s.started_ns, std::nullopt, ""};
        if (s.ended_ns) {
            sp.ended_ns = s.ended_ns;
            if (store::is_failure(s.reason)) sp.failure = std::string(store::to_string(s.reason));
        }
        if (s.model_open_ms) sp.model_open_ms = *s.model_open_ms;
        out.push_back(std::move(sp));
    }
    return out;
}

core::StepVerdict Controller::judge(int64_t t0, int64_t t1, core::GpuMemoryCheck* gpu_check) const {
    core::StepJudge j;
    j.target = plan_.steps[step_];
    j.step_start_ns = step_start_ns_;
    j.default_sla = plan_.default_sla;
    j.sla_for = [this](const std::string& profile) -> const Sla& { return plan_.sla_for(profile); };
    j.frames = [this](uint32_t id, int64_t a, int64_t b) -> std::span<const FrameRecord> {
        const auto& f = by_id_[id]->step_frames;  // by begin time (frames arrive in seq order)
        auto lo = std::lower_bound(f.begin(), f.end(), a, [](const FrameRecord& r, int64_t t) { return r.t_begin_ns < t; });
        auto hi = std::lower_bound(lo, f.end(), b, [](const FrameRecord& r, int64_t t) { return r.t_begin_ns < t; });
        return {f.data() + (lo - f.begin()), static_cast<size_t>(hi - lo)};
    };
    if (gpu_)
        j.gpu_memory = [this](int64_t a, int64_t b, double limit) { return gpu_->check_memory(a, b, limit); };
    const auto sp = spans();
    return core::judge_span(j, sp, t0, t1, gpu_check);
}

void Controller::store_verdict(int repeat, int64_t t0, int64_t t1, const core::StepVerdict& v, int64_t judged_ns) {
    store::VerdictRow r;
    r.step_idx = static_cast<int>(step_);
    r.repeat = repeat;
    r.target_sessions = static_cast<int>(v.target);
    r.t0_ns = t0;
    r.t1_ns = t1;
    r.judged_ns = judged_ns;
    r.pass = v.pass;
    r.sessions = static_cast<int64_t>(v.sessions.size());
    r.failures = v.failures;
    r.frames = static_cast<int64_t>(v.frames);
    r.dropped = static_cast<int64_t>(v.dropped);
    r.fps_median = v.fps_median;
    r.fps_min = v.fps_min;
    r.fps_max = v.fps_max;
    r.p95_median_ms = v.p95_median_ms;
    r.p95_worst_ms = v.p95_worst_ms;
    r.low1_worst_fps = v.low1_worst_fps;
    r.latency_p95_worst_ms = v.latency_p95_worst_ms;
    r.stutter_worst = v.stutter_worst;
    r.fairness = v.fairness;
    r.gpu_mem_peak_pct = v.gpu_mem_peak_pct;
    r.reasons = v.reasons;
    store_->add_verdict(std::move(r));
}

core::MaxDensity Controller::density() const {
    std::vector<core::StepPass> pass;
    for (const auto& o : outcomes_) pass.push_back({o.verdict.target, o.judged && o.verdict.pass});
    return core::max_density(pass);
}

// Every running session that began before `we` has sent a frame that began at or after it, or
// (in a think pause) a HEARTBEAT stamped a second past it with every frame it counts received:
// then no frame that began inside the window is still on its way, and the live verdict sees
// the frames the report will read back.
bool Controller::telemetry_past(int64_t we) const {
    for (const auto& [id, s] : sessions_) {
        if (!s.alive() || s.started_ns >= we) continue;
        if (s.last_frame_begin_ns >= we) continue;
        if (s.last_heartbeat_ns >= we + 1'000'000'000 && s.next_seq >= s.heartbeat_frames) continue;
        return false;
    }
    return true;
}

void Controller::judge_ready() {
    // Windows close in order; judge them in order. A session that keeps silent past the
    // heartbeat timeout is declared hung first, so this cannot wait forever; the cap is a backstop.
    while (!pending_.empty() && phase_ == Phase::measuring) {
        const PendingJudge p = pending_.front();
        const bool overdue = double(now_ns() - p.we) * 1e-9 > plan_.heartbeat_timeout_s + 5;
        if (!telemetry_past(p.we) && !overdue) return;
        pending_.erase(pending_.begin());
        judge_window(p.repeat, p.ws, p.we, p.last);
    }
}

void Controller::judge_window(uint32_t repeat, int64_t ws, int64_t we, bool last) {
    core::StepVerdict v = judge(ws, we);
    store::StepEnd sr;
    sr.idx = static_cast<int>(step_);
    sr.repeat = static_cast<int>(repeat);
    sr.window_start_ns = ws;
    sr.window_end_ns = we;
    sr.ended_ns = now_ns();
    sr.verdict = v.pass ? "pass" : "fail";
    sr.detail = v.reasons.empty() ? "" : v.reasons.front();
    store_->end_step(sr);
    store_verdict(static_cast<int>(repeat), ws, we, v, sr.ended_ns);
    window_verdicts_.push_back(std::move(v));
    if (last) end_step();
}

void Controller::end_step() {
    uint32_t target = plan_.steps[step_];
    // The step's verdict pools every window: all frames from the first window's start.
    StepOutcome o;
    o.index = static_cast<uint32_t>(step_);
    core::GpuMemoryCheck gpu;
    o.verdict = judge(measure_start_ns_, measure_end_ns_, &gpu);
    if (gpu_ && !gpu.checked)
        store_->add_event({now_ns(), std::nullopt, "sla-unchecked", "step " + std::to_string(step_ + 1) + ": " + gpu.detail});
    core::fold_windows(o.verdict, window_verdicts_);
    o.judged = true;
    const int64_t judged = now_ns();  // the verdict row and its event share the time (the monitor pairs them)
    store_verdict(store::pooled_repeat, measure_start_ns_, measure_end_ns_, o.verdict, judged);
    outcomes_.push_back(o);
    store_->add_event({judged, std::nullopt, "step-verdict",
                       "step " + std::to_string(step_ + 1) + " (" + std::to_string(target) + " sessions): " +
                           (o.verdict.pass ? "pass" : "fail: " + o.verdict.reasons.front())});
    out_.step_done(o, plan_.steps.size());
    live_event(core::StepVerdictEvent{uint32_t(step_ + 1), target, o.verdict.pass, o.verdict.fps_median,
                                o.verdict.p95_worst_ms, o.verdict.reasons.empty() ? "" : o.verdict.reasons.front()});
    bool stop = (!o.verdict.pass && plan_.stop == core::StopRule::first_failure) || step_ + 1 >= plan_.steps.size();
    if (stop)
        stop_everything(store::RunStatus::finished);
    else
        begin_step(step_ + 1);
}


}  // namespace seatmark::orchestrator::run_detail
