#pragma once
// The step machine: a run as a series of steps, each
//   starting (bring the sessions to the target, wait until all said HELLO)
//   -> settling -> measuring (one or more windows back to back)
//   -> judging (each closed window once its telemetry is in, then the step pooled)
//   -> the planner's next count, or the end of the run.
// It owns no sessions, sockets or files: time comes from a Clock and a Timer, sessions from a
// SessionSource, the other hosts through a StepCoordinator, the counts from a StepPlanner, and
// judging and recording through StepHooks (orchestrator/step_seams.h). The run controller wires
// the real ones; tests/orchestrator/test_step_machine.cpp drives it with fakes.
//
// A step whose outcome is already decided ends at once (issue 17): more sessions failed in it
// than the SLA allows, or no session of it is left running. The current window (or, before any
// window opened, a window from the step's start) closes now and is judged as any other, so the
// report recomputes the same verdict; no further window or settle time is spent on it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/verdict.h"
#include "orchestrator/step_seams.h"

namespace seatmark::orchestrator {

struct StepContext {
    size_t index = 0;
    uint32_t target = 0;
    int64_t started_ns = 0;
    std::string shortfall;  // why the source could not supply the step's sessions (SessionSource::shortfall)
};

// What the machine asks of the controller (or of a test's fake).
class StepHooks {
public:
    virtual ~StepHooks() = default;
    virtual void step_begun(const StepContext& s, size_t planned_steps) = 0;
    virtual void window_opened(const StepContext& s, uint32_t repeat, int64_t ws) = 0;
    virtual void window_closed(const StepContext& s, uint32_t repeat, int64_t ws, int64_t we) = 0;
    // Every running session's telemetry has passed t (no frame that began before t is on its way).
    virtual bool telemetry_past(int64_t t) const = 0;
    // Sessions that failed during the current step so far.
    virtual uint32_t step_failures() const = 0;
    // Judges (and records) one window, and the step pooled over [t0, t1) with its windows folded
    // in. The verdict goes to `done`, at once or later: the controller judges on a thread of its
    // own (orchestrator/judge_worker.h) and calls `done` from its event loop, which goes on
    // meanwhile. One judgement is asked at a time; a verdict that comes after halt() is dropped.
    using VerdictDone = std::function<void(core::StepVerdict)>;
    virtual void judge_window(const StepContext& s, uint32_t repeat, int64_t ws, int64_t we, VerdictDone done) = 0;
    virtual void judge_step(const StepContext& s, int64_t t0, int64_t t1, std::span<const core::StepVerdict> windows,
                            VerdictDone done) = 0;
    virtual void step_decided(const StepContext& s, const std::string& why) = 0;
    virtual void step_judged(const StepRecord& r, size_t planned_steps) = 0;
    // The planner ended the run (ok), or the pool could not agree (!ok, with why).
    virtual void run_over(bool ok, const std::string& detail) = 0;
};

struct StepTimes {
    int64_t settle_ns = 5'000'000'000;
    int64_t window_ns = 20'000'000'000;
    int64_t startup_ns = 120'000'000'000;  // shown as the starting phase's time left (hangs end it)
    int64_t judge_backstop_ns = 15'000'000'000;  // a closed window is judged by then whatever arrived
    uint32_t failures_allowed = 0;          // sessions that may fail in a step (the default SLA's)
};

class StepMachine {
public:
    enum class Phase { idle, starting, settling, measuring, judging, syncing, over };

    StepMachine(const Clock& clock, Timer& timer, SessionSource& sessions, StepCoordinator& coordinator,
                StepPlanner& planner, StepHooks& hooks, StepTimes times);

    void start();  // the first step (or the end, when the planner has none)
    // Called on every pass of the event loop: starting -> settling, judging closed windows,
    // the decided rule, the coordinator's progress.
    void poll();
    // The run is stopping from outside (a signal, a failed database): nothing more is started.
    void halt();

    Phase phase() const { return phase_; }
    const char* phase_name() const;
    bool has_step() const { return step_.has_value(); }
    const StepContext& step() const { return *step_; }
    size_t planned_steps() const { return planner_.planned_steps(); }
    int64_t phase_end_ns() const { return phase_end_ns_; }  // 0: open-ended
    std::span<const StepRecord> done() const { return done_; }
    // Inside a measurement window now (the controller's steady-state CPU figure).
    bool window_open() const { return window_open_; }
    // A judgement was asked and its verdict has not come yet.
    bool awaiting_verdict() const { return awaiting_; }

private:
    struct Pending {
        uint32_t repeat = 0;
        int64_t ws = 0, we = 0;
    };
    void begin_step(uint32_t target);
    void settle();
    void open_window();
    void close_window();
    void judge_ready();
    void window_judged(core::StepVerdict v);
    void after_judging();
    void end_step();
    void step_pooled(core::StepVerdict v);
    // The `done` of the judgement asked now: calls `then` unless a later one was asked or the
    // machine halted meanwhile.
    StepHooks::VerdictDone on_verdict(void (StepMachine::*then)(core::StepVerdict));
    std::optional<std::string> decided_now();
    void decide(const std::string& why);
    void sync(SyncRequest r, std::function<void()> then);

    const Clock& clock_;
    Timer& timer_;
    SessionSource& sessions_;
    StepCoordinator& coord_;
    StepPlanner& planner_;
    StepHooks& hooks_;
    StepTimes times_;

    Phase phase_ = Phase::idle;
    Phase sync_from_ = Phase::idle;  // the phase a pending sync was entered from
    bool halted_ = false;
    std::optional<StepContext> step_;
    int64_t phase_end_ns_ = 0;
    uint32_t repeat_ = 0;                 // the next window's index
    int64_t ws_ = 0;                      // the open window's start
    bool window_open_ = false;
    int64_t measure_start_ns_ = 0, measure_end_ns_ = 0;
    std::vector<Pending> pending_;
    bool awaiting_ = false;               // a judgement's verdict is on its way
    uint64_t judgement_ = 0;              // the number of the judgement last asked
    std::vector<core::StepVerdict> windows_;
    std::string decided_;                 // why the current step ended early
    std::vector<StepRecord> done_;
};

}  // namespace seatmark::orchestrator
