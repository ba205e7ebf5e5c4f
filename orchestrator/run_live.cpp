// The tick: hangs, the step machine's poll, sampling, the once-a-second status; the live view (LiveSource).
#include "orchestrator/run_controller_impl.h"

namespace seatmark::orchestrator::run_detail {

namespace asio = boost::asio;
using namespace std::chrono_literals;

void Controller::sample() {
    const int64_t t = now_ns();
    auto smp = sampler_->sample(t, table_);
    for (const auto& e : smp.errors) store_->add_event({t, std::nullopt, "sampler-error", e});
    store_->add_samples(std::move(smp.rows));
}

void Controller::on_tick() {
    int64_t t = now_ns();
    // Hangs: no message within the heartbeat timeout (the startup timeout before the first one).
    if (phase_ != Phase::done) {
        for (Session* s : table_.all()) {
            if (!s->alive()) continue;
            double limit = s->said_hello() ? plan_.heartbeat_timeout_s : std::max(startup_timeout_s, plan_.heartbeat_timeout_s);
            if (double(t - s->last_seen_ns) * 1e-9 > limit)
                fail_session(*s, SessionEnd::hang,
                             "no heartbeat for " + std::to_string(int(limit)) + " s; killed", SIGKILL);
        }
        // A session that exited but whose socket never closed: stop waiting for it.
        for (Session* s : table_.all())
            if (s->state == SessionState::exited && double(t - s->exited_ns) * 1e-9 > exit_drain_s) finalize(*s);
    }
    // Anything above may have ended the run (the last session of the last step finalized), and
    // then the store is finished: nothing below may write to it.
    if (phase_ == Phase::done) return;
    if (phase_ == Phase::running) machine_.poll();  // starting -> settling, judging, the decided rule
    if (phase_ == Phase::done) return;
    if (phase_ == Phase::stopping && double(t - stop_started_ns_) * 1e-9 > stop_grace_s) {
        source_.kill_all();
    }
    check_store(t);
    // Samples at 1 Hz (docs/design.md: 1-4 Hz): with hundreds of sessions, reading /proc is the sampler's cost.
    if (t - last_sample >= 1'000'000'000) {
        last_sample = t;
        sample();
    }
    if (t - last_status >= 1'000'000'000 && phase_ != Phase::done && !opts_.quiet) {
        double dt = last_status ? double(t - last_status) * 1e-9 : 1.0;
        last_status = t;
        StatusSnapshot st;
        st.step = machine_.has_step() ? machine_.step().index + 1 : 0;
        st.steps = machine_.planned_steps();
        st.target = current_target();
        st.alive = table_.alive();
        st.phase = phase_name();
        st.phase_left_s = machine_.phase_end_ns() ? std::max(0.0, double(machine_.phase_end_ns() - t) * 1e-9) : 0.0;
        std::vector<double> fps;
        for (Session* s : table_.all())
            if (s->alive()) {
                if (s->last_frame_begin_ns != INT64_MIN) {  // drawing; one still starting has no frame rate yet
                    fps.push_back(double(s->recent_frames) / dt);
                    ++st.drawing;
                }
                s->recent_frames = 0;
            }
        st.fps_median = fps.empty() ? NAN : stats::median(fps);
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
    LiveView v;
    v.plan = &plan_;
    v.db_path = db_path_;
    v.host = host_.hostname;
    v.status = phase_ == Phase::done       ? std::string(store::to_string(final_status_))
               : phase_ == Phase::stopping ? "stopping"
                                           : "running";
    v.phase = phase_name();
    v.run_start_ns = run_start_ns_;
    v.machine = &machine_;
    v.sessions = &table_;
    v.sampler = sampler_.get();
    v.outcomes = outcomes_;
    v.max_density = density().sessions;
    v.frames_stored = store_ ? store_->frames_stored() : 0;
    v.frames_lost = table_.lost_total();
    v.source = &source_;
    return project_live(v, now_ns());
}

std::vector<core::LiveFrame> Controller::live_frames(uint32_t session, uint64_t since, size_t max) {
    const Session* s = table_.find(session);
    return s ? project_frames(*s, since, max) : std::vector<core::LiveFrame>{};
}


}  // namespace seatmark::orchestrator::run_detail
