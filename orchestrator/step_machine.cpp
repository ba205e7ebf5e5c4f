// The step machine (orchestrator/step_machine.h) and the linear planner.
#include "orchestrator/step_machine.h"

#include <utility>

namespace seatmark::orchestrator {

const char* to_string(SyncPoint p) {
    switch (p) {
        case SyncPoint::settle: return "settle";
        case SyncPoint::window_open: return "window-open";
        case SyncPoint::window_close: return "window-close";
    }
    return "?";
}

std::optional<uint32_t> LinearPlanner::first() {
    if (steps_.empty()) return std::nullopt;
    return steps_.front();
}

bool LinearPlanner::more_windows(uint32_t closed, std::span<const core::StepVerdict>) { return closed < repeats_; }

std::optional<uint32_t> LinearPlanner::next(std::span<const StepRecord> done) {
    if (done.empty()) return first();
    if (stop_at_failure_ && !done.back().verdict.pass) return std::nullopt;
    if (done.size() >= steps_.size()) return std::nullopt;
    return steps_[done.size()];
}

StepMachine::StepMachine(const Clock& clock, Timer& timer, SessionSource& sessions, StepCoordinator& coordinator,
                         StepPlanner& planner, StepHooks& hooks, StepTimes times)
    : clock_(clock),
      timer_(timer),
      sessions_(sessions),
      coord_(coordinator),
      planner_(planner),
      hooks_(hooks),
      times_(times) {}

const char* StepMachine::phase_name() const {
    switch (phase_ == Phase::syncing ? sync_from_ : phase_) {
        case Phase::idle: return "starting";
        case Phase::starting: return "starting";
        case Phase::settling: return "settling";
        case Phase::measuring: return "measuring";
        case Phase::judging: return "judging";
        case Phase::syncing: return "syncing";
        case Phase::over: return "done";
    }
    return "?";
}

void StepMachine::start() {
    auto t = planner_.first();
    if (!t) {
        phase_ = Phase::over;
        hooks_.run_over(true, "");
        return;
    }
    begin_step(*t);
}

void StepMachine::halt() {
    halted_ = true;
    timer_.cancel();
    window_open_ = false;
    phase_ = Phase::over;
}

void StepMachine::begin_step(uint32_t target) {
    step_ = StepContext{done_.size(), target, clock_.now_ns()};
    pending_.clear();
    windows_.clear();
    decided_.clear();
    repeat_ = 0;
    measure_start_ns_ = measure_end_ns_ = 0;
    phase_ = Phase::starting;
    phase_end_ns_ = step_->started_ns + times_.startup_ns;
    // The step is known (its start decides failure membership) before its sessions start.
    hooks_.step_begun(*step_, planner_.planned_steps());
    if (halted_) return;
    const uint32_t active = sessions_.active();
    if (active < target)
        sessions_.start_up_to(target);
    else if (active > target)
        sessions_.stop_newest(active - target);
}

void StepMachine::poll() {
    if (halted_ || phase_ == Phase::over || phase_ == Phase::idle) return;
    coord_.poll();
    if (phase_ == Phase::starting || phase_ == Phase::settling || phase_ == Phase::measuring) {
        if (decided_.empty()) {
            if (auto why = decided_now()) {
                decide(*why);
                return;
            }
        }
    }
    if (phase_ == Phase::starting && sessions_.ready()) settle();
    judge_ready();
}

std::optional<std::string> StepMachine::decided_now() {
    if (!step_) return std::nullopt;
    if (phase_ == Phase::starting)
        if (auto why = sessions_.shortfall()) {
            step_->shortfall = *why;  // judged as the step's first reason (core/step_rules.h)
            return *why;
        }
    const uint32_t failed = hooks_.step_failures();
    if (failed > times_.failures_allowed)
        return std::to_string(failed) + " session(s) failed, " + std::to_string(times_.failures_allowed) + " allowed";
    // While starting, sessions may still be on their way (joined ones connect when they can).
    if (phase_ != Phase::starting && step_->target > 0 && sessions_.active() == 0)
        return "no session of the step is running";
    if (auto r = coord_.remote_decided()) return *r;
    return std::nullopt;
}

void StepMachine::decide(const std::string& why) {
    decided_ = why;
    hooks_.step_decided(*step_, why);
    if (halted_) return;
    // The rest of the step's sequence (settle, window open, close) passes at once, so every
    // host of a pool still meets its coordinator at the same points.
    switch (phase_) {
        case Phase::starting: settle(); break;
        case Phase::settling:
            timer_.cancel();
            open_window();
            break;
        case Phase::measuring: close_window(); break;
        default: break;
    }
}

void StepMachine::sync(SyncRequest r, std::function<void()> then) {
    sync_from_ = phase_;
    phase_ = Phase::syncing;
    coord_.arrive(r, [this, then = std::move(then)](const SyncResult& res) {
        if (phase_ != Phase::syncing || halted_) return;  // the run stopped while waiting
        if (!res.ok) {
            phase_ = Phase::over;
            window_open_ = false;
            timer_.cancel();
            hooks_.run_over(false, res.detail);
            return;
        }
        if (!res.decided.empty() && decided_.empty()) {
            decided_ = res.decided;
            hooks_.step_decided(*step_, decided_);
        }
        then();
    });
}

void StepMachine::settle() {
    sync({SyncPoint::settle, step_->index, 0, step_->target, ""}, [this] {
        if (!decided_.empty()) {
            open_window();
            return;
        }
        phase_ = Phase::settling;
        phase_end_ns_ = clock_.now_ns() + times_.settle_ns;
        timer_.start(times_.settle_ns, [this] {
            if (phase_ == Phase::settling && !halted_) open_window();
        });
    });
}

void StepMachine::open_window() {
    sync({SyncPoint::window_open, step_->index, repeat_, step_->target, ""}, [this] {
        phase_ = Phase::measuring;
        // A step decided before its first window is judged from its start: its failures and
        // whatever frames it had, rather than an empty span.
        ws_ = !decided_.empty() && repeat_ == 0 ? step_->started_ns : clock_.now_ns();
        if (repeat_ == 0) measure_start_ns_ = ws_;
        window_open_ = true;
        phase_end_ns_ = ws_ + times_.window_ns;
        hooks_.window_opened(*step_, repeat_, ws_);
        if (!decided_.empty()) {
            close_window();
            return;
        }
        timer_.start(times_.window_ns, [this] {
            if (phase_ == Phase::measuring && !halted_) close_window();
        });
    });
}

void StepMachine::close_window() {
    timer_.cancel();
    const int64_t we = clock_.now_ns();
    window_open_ = false;
    hooks_.window_closed(*step_, repeat_, ws_, we);
    // Frames arrive a little after they begin (fence, batching): judged once they are in.
    pending_.push_back({repeat_, ws_, we});
    measure_end_ns_ = we;
    const uint32_t closed = ++repeat_;
    sync({SyncPoint::window_close, step_->index, closed - 1, step_->target, decided_}, [this, closed] {
        if (decided_.empty() && planner_.more_windows(closed, windows_)) {
            open_window();
            return;
        }
        phase_ = Phase::judging;
        phase_end_ns_ = 0;
        judge_ready();
    });
}

void StepMachine::judge_ready() {
    if (halted_ || phase_ == Phase::over || awaiting_) return;
    // Windows close in order and are judged in order, one at a time. A silent session is
    // declared hung by its source within the heartbeat timeout, so this cannot wait forever; the
    // backstop is for telemetry that never says it has passed.
    if (!pending_.empty()) {
        const Pending p = pending_.front();
        const bool overdue = clock_.now_ns() - p.we > times_.judge_backstop_ns;
        if (!overdue && !hooks_.telemetry_past(p.we)) return;
        pending_.erase(pending_.begin());
        hooks_.judge_window(*step_, p.repeat, p.ws, p.we, on_verdict(&StepMachine::window_judged));
        return;  // window_judged goes on, at once or when the verdict comes
    }
    if (phase_ == Phase::judging) after_judging();
}

StepHooks::VerdictDone StepMachine::on_verdict(void (StepMachine::*then)(core::StepVerdict)) {
    awaiting_ = true;
    const uint64_t n = ++judgement_;
    return [this, n, then](core::StepVerdict v) {
        if (n != judgement_ || !awaiting_ || halted_ || phase_ == Phase::over) return;
        awaiting_ = false;
        (this->*then)(std::move(v));
    };
}

void StepMachine::window_judged(core::StepVerdict v) {
    windows_.push_back(std::move(v));
    judge_ready();
}

void StepMachine::after_judging() {
    // A planner that wants more evidence may ask for another window once it has seen them all.
    if (decided_.empty() && !decided_now() && planner_.more_windows(repeat_, windows_)) {
        open_window();
        return;
    }
    end_step();
}

void StepMachine::end_step() {
    hooks_.judge_step(*step_, measure_start_ns_, measure_end_ns_, windows_, on_verdict(&StepMachine::step_pooled));
}

void StepMachine::step_pooled(core::StepVerdict v) {
    StepRecord rec;
    rec.index = step_->index;
    rec.target = step_->target;
    rec.verdict = std::move(v);
    rec.decided = decided_;
    rec.started_ns = step_->started_ns;
    rec.ended_ns = clock_.now_ns();
    done_.push_back(std::move(rec));
    hooks_.step_judged(done_.back(), planner_.planned_steps());
    if (halted_) return;
    auto next = planner_.next(done_);
    if (halted_) return;
    if (!next && planner_.interrupted()) {
        phase_ = Phase::over;  // the controller's signal handler stops the run (aborted, with its cause)
        return;
    }
    if (!next) {
        phase_ = Phase::over;
        hooks_.run_over(true, "");
        return;
    }
    begin_step(*next);
}

}  // namespace seatmark::orchestrator
