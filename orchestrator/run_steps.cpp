// The step machine (ramp, settle, windows, repeats, stop rule) and judging with core/step_rules.h.
#include "orchestrator/run_controller_impl.h"

#include <algorithm>

#include "store/verdict_row.h"

namespace seatmark::orchestrator::run_detail {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// ---- spawn mode's session source

void SpawnSource::start_up_to(uint32_t n) {
    // Failed sessions are replaced, so every step runs its full target of live sessions.
    for (uint32_t alive = active(); alive < n; ++alive) c_.spawn(c_.table_.next_id());
}

void SpawnSource::stop_newest(uint32_t count) {
    const auto& all = c_.table_.all();
    for (auto it = all.rbegin(); it != all.rend() && count > 0; ++it) {
        Session& s = **it;
        if (!s.active()) continue;
        c_.table_.request_stop(s);
        if (s.proc && s.proc->running()) s.proc->signal_group(SIGTERM);
        --count;
    }
}

uint32_t SpawnSource::active() const { return c_.table_.active(); }

bool SpawnSource::ready() const { return c_.table_.ready(); }

void SpawnSource::stop_all() {
    for (Session* s : c_.table_.all()) {
        if (s->proc && s->proc->running()) {
            c_.table_.request_stop(*s);
            s->proc->signal_group(SIGTERM);
        }
    }
}

void SpawnSource::kill_all() {
    for (Session* s : c_.table_.all())
        if (s->proc && s->proc->running()) s->proc->signal_group(SIGKILL);
}

// ---- the step machine's hooks

void Controller::step_begun(const StepContext& st, size_t planned_steps) {
    step_failures_.clear();
    for (Session* s : table_.all()) s->live_frames.clear();  // the live API serves the current step's
    last_judged_.reset();
    if (sampler_) sampler_->step_begins(st.started_ns);  // spans judged from now on lie within this step
    store_->add_event({st.started_ns, std::nullopt, "step-begin",
                       "step " + std::to_string(st.index + 1) + " of " + std::to_string(planned_steps) + ": " +
                           std::to_string(st.target) + " sessions"});
    live_event(core::StepBeginEvent{uint32_t(st.index + 1), uint32_t(planned_steps), st.target});
}

void Controller::window_opened(const StepContext& st, uint32_t repeat, int64_t) {
    window_cpu0_ = process_cpu_seconds();
    window_open_ns_ = now_ns();
    store::StepInfo si;
    si.idx = static_cast<int>(st.index);
    si.repeat = static_cast<int>(repeat);
    si.target_sessions = static_cast<int>(st.target);
    si.started_ns = st.started_ns;
    si.shortfall = st.shortfall;
    if (opts_.pool && opts_.pool->step_hosts)
        if (auto h = opts_.pool->step_hosts(st.index)) si.pool_hosts = static_cast<int>(*h);
    store_->begin_step(si);
}

void Controller::window_closed(const StepContext&, uint32_t, int64_t, int64_t we) {
    // The steady-state figure counts the time the window really was open (a decided step's
    // window spans from its start, spawning included).
    measured_cpu_s_ += process_cpu_seconds() - window_cpu0_;
    measured_wall_s_ += double(we - window_open_ns_) * 1e-9;
}

uint32_t Controller::step_failures() const {
    return machine_.has_step() ? table_.failures_since(machine_.step().started_ns) : 0;
}

bool Controller::telemetry_past(int64_t t) const { return table_.telemetry_past(t); }

void Controller::step_decided(const StepContext& st, const std::string& why) {
    store_->add_event({now_ns(), std::nullopt, "step-decided",
                       "step " + std::to_string(st.index + 1) + " (" + std::to_string(st.target) +
                           " sessions) ends now: " + why});
}

void Controller::run_over(bool ok, const std::string& detail) {
    if (ok) {
        stop_everything(store::RunStatus::finished);
        return;
    }
    out_.note("the pool could not agree on the next step (" + detail + "): stopping");
    store_->add_event({now_ns(), std::nullopt, "run-abort", detail});
    // A pool that lost a host: the survivors stop with their data complete (maybe_done records it).
    stop_everything(opts_.pool ? store::RunStatus::degraded : store::RunStatus::aborted);
}

void Controller::judge(const StepContext& st, int64_t t0, int64_t t1, std::function<void(const Judged&)> then) {
    if (last_judged_ && last_judged_->step_started_ns == st.started_ns && last_judged_->t0 == t0 && last_judged_->t1 == t1) {
        then(*last_judged_);  // the report, too, judges a one-window step's frames once
        return;
    }
    // A span's frames are read back from the run's database, one member at a time, as the report
    // reads them: the orchestrator keeps no frames of its own beyond the live view's last seconds,
    // so its memory does not grow with the window. That takes long for a long window, so it runs
    // on the judge's thread (orchestrator/judge_worker.h) while this loop goes on; the thread is
    // given copies of what it reads. The span is judged once every running session's telemetry
    // passed its end, and every frame received was queued for the store on arrival.
    JudgeJob job;
    core::StepJudge& j = job.judge;
    j.target = st.target;
    j.step_start_ns = st.started_ns;
    j.shortfall = st.shortfall;
    j.default_sla = plan_.default_sla;
    j.sla_for = [plan = &plan_](const std::string& profile) -> const Sla& { return plan->sla_for(profile); };
    job.spans = table_.spans();
    auto endpoints = std::make_shared<std::map<uint32_t, core::EndpointSeries>>();
    for (const auto& m : job.spans)
        if (const core::EndpointSeries* e = source_.endpoint(m.id)) endpoints->emplace(m.id, *e);
    j.endpoint = [endpoints](uint32_t id) -> const core::EndpointSeries* {
        auto it = endpoints->find(id);
        return it == endpoints->end() ? nullptr : &it->second;
    };
    if (const GpuTelemetry* gpu = sampler_->gpu()) j.gpu_memory = gpu->memory_check();
    job.t0 = t0;
    job.t1 = t1;
    judging_ = Judging{st.started_ns, t0, t1, std::move(then)};
    judge_worker_->start(std::move(job), [this](JudgeResult r) {
        asio::post(io_, [this, r = std::move(r)]() mutable { judged(std::move(r)); });
    });
}

void Controller::judged(JudgeResult r) {
    longest_judge_ns_ = std::max(longest_judge_ns_, r.took_ns);
    Judging w = std::move(*judging_);
    judging_.reset();
    // A run stopping (a signal, a failed database) does not wait for a verdict nor record one:
    // the judgement was cut short, and the report judges the span from the database.
    if (phase_ != Phase::running || r.cancelled) {
        maybe_done();
        return;
    }
    if (!r.read_error.empty()) {
        // Without its frames the span cannot be judged: the run stops as after any store failure.
        if (store_failure_.empty()) store_failure_ = "reading frames back to judge: " + r.read_error;
        out_.note("the database failed (" + store_failure_ + "): stopping every session now; the run is aborted");
        stop_everything(store::RunStatus::aborted);
        return;
    }
    last_judged_ = Judged{w.step_started_ns, w.t0, w.t1, std::move(r.verdict), r.gpu};
    w.then(*last_judged_);
}

void Controller::store_verdict(const StepContext& st, int repeat, int64_t t0, int64_t t1, const core::StepVerdict& v,
                               int64_t judged_ns) {
    // A pool host idle in the step (a scaling series on fewer hosts) has no verdict of its own.
    if (opts_.pool && st.target == 0) return;
    store::VerdictRow r;
    r.step_idx = static_cast<int>(st.index);
    r.repeat = repeat;
    r.t0_ns = t0;
    r.t1_ns = t1;
    r.judged_ns = judged_ns;
    r.sessions = static_cast<int64_t>(v.sessions.size());
    store::put_verdict(r, v);
    store_->add_verdict(std::move(r));
}

core::MaxDensity Controller::density() const {
    if (auto a = planner_.answer()) return *a;  // an adaptive search decides its own answer
    std::vector<core::StepPass> pass;
    for (const auto& o : outcomes_) pass.push_back({o.verdict.target, o.judged && o.verdict.pass});
    return core::max_density(pass);
}

void Controller::judge_window(const StepContext& st, uint32_t repeat, int64_t ws, int64_t we, VerdictDone done) {
    judge(st, ws, we, [this, st, repeat, ws, we, done = std::move(done)](const Judged& j) {
        store::StepEnd sr;
        sr.idx = static_cast<int>(st.index);
        sr.repeat = static_cast<int>(repeat);
        sr.window_start_ns = ws;
        sr.window_end_ns = we;
        sr.ended_ns = now_ns();
        sr.verdict = j.verdict.pass ? "pass" : "fail";
        sr.detail = j.verdict.reasons.empty() ? "" : j.verdict.reasons.front();
        store_->end_step(sr);
        store_verdict(st, static_cast<int>(repeat), ws, we, j.verdict, sr.ended_ns);
        done(j.verdict);
    });
}

void Controller::judge_step(const StepContext& st, int64_t t0, int64_t t1, std::span<const core::StepVerdict> windows,
                            VerdictDone done) {
    // The step's verdict pools every window: all frames from the first window's start.
    std::vector<core::StepVerdict> folded(windows.begin(), windows.end());
    judge(st, t0, t1, [this, st, t0, t1, folded = std::move(folded), done = std::move(done)](const Judged& j) {
        if (sampler_->gpu() && !j.gpu.checked)
            store_->add_event({now_ns(), std::nullopt, "sla-unchecked", "step " + std::to_string(st.index + 1) + ": " + j.gpu.detail});
        core::StepVerdict v = j.verdict;
        core::fold_windows(v, folded);
        pooled_judged_ns_ = now_ns();  // the verdict row and its event share the time (the monitor pairs them)
        store_verdict(st, store::pooled_repeat, t0, t1, v, pooled_judged_ns_);
        done(std::move(v));
    });
}

void Controller::step_judged(const StepRecord& r, size_t planned_steps) {
    StepOutcome o;
    o.index = static_cast<uint32_t>(r.index);
    o.verdict = r.verdict;
    o.judged = true;
    for (const auto& f : o.verdict.sessions) {
        const Session* s = table_.find(f.id);
        if (!s) continue;  // a pool's verdict may carry other hosts' sessions: this host names its own
        const std::string& name = s->device;
        const bool software = s->software;
        auto it = std::find_if(o.devices.begin(), o.devices.end(),
                               [&](const StepDevice& d) { return d.name == name && d.software == software; });
        if (it == o.devices.end()) o.devices.push_back({name, software, 1});
        else ++it->sessions;
    }
    outcomes_.push_back(o);
    store_->add_event({pooled_judged_ns_, std::nullopt, "step-verdict",
                       store::step_verdict_detail(uint32_t(r.index + 1), r.target, o.verdict.pass,
                                                  o.verdict.pass ? std::string() : o.verdict.reasons.front())});
    out_.step_done(o, planned_steps);
    live_event(core::StepVerdictEvent{uint32_t(r.index + 1), r.target, o.verdict.pass, o.verdict.fps_median,
                                      o.verdict.p95_worst_ms, o.verdict.reasons.empty() ? "" : o.verdict.reasons.front()});
}

}  // namespace seatmark::orchestrator::run_detail
