#pragma once
// The step machine's seams (orchestrator/step_machine.h): what it is given instead of reaching
// for the clock, the timers, the sessions, the other hosts or the plan itself. Each has the
// implementation a single host running a linear ramp uses; others plug in beside them:
// sessions joined over TCP (a SessionSource), an MPI pool (a StepCoordinator), adaptive search
// (a StepPlanner). Tests drive the machine with fakes of all of them (tests/orchestrator/).
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/step_rules.h"
#include "core/verdict.h"
#include "store/endpoint_rows.h"

namespace seatmark::orchestrator {

// Time, injected. The real one is CLOCK_MONOTONIC (common/clock.h), the base of every *_ns.
class Clock {
public:
    virtual ~Clock() = default;
    virtual int64_t now_ns() const = 0;
};

// A one-shot timer, injected. start() replaces a pending wait; a cancelled wait never fires.
class Timer {
public:
    virtual ~Timer() = default;
    virtual void start(int64_t delay_ns, std::function<void()> fire) = 0;
    virtual void cancel() = 0;
};

// Seam "session source": where a step's sessions come from. Spawned locally (one process per
// session) or joined over TCP (sessions started inside users' logons connect to the run).
class SessionSource {
public:
    virtual ~SessionSource() = default;
    // Bring the active sessions up to n: start new ones, or (joined) wait for them to connect.
    virtual void start_up_to(uint32_t n) = 0;
    // Stop the `count` newest active sessions (a planner that steps down).
    virtual void stop_newest(uint32_t count) = 0;
    // Sessions started (or joined) and neither ended, failed nor asked to stop.
    virtual uint32_t active() const = 0;
    // Every active session said HELLO and no session asked to stop is still running, so the
    // load is the step's own. Sessions that never get there are declared hung by their source.
    virtual bool ready() const = 0;
    // Why the step cannot reach its count (join mode: "27 of 30 sessions joined within 5 min"),
    // nullopt while it still can. The machine then ends the starting step at once with it.
    virtual std::optional<std::string> shortfall() const { return std::nullopt; }
    // The run ends: stop every session (spawned: SIGTERM), and kill those that do not (SIGKILL).
    virtual void stop_all() = 0;
    virtual void kill_all() = 0;
    // The controller declared this session failed (hang, protocol error, software fallback).
    // A spawned one is killed with it; a source without a process to wait for ends it
    // (SessionHost::ended) when it has closed its connection.
    virtual void failed(uint32_t) {}
    // What an RDP launcher saw of session `id` (join mode with `seatmark launch --join`): its
    // arrivals for the verdict, its logon row for the live view; nullptr: nobody watches it.
    virtual const core::EndpointSeries* endpoint(uint32_t) const { return nullptr; }
    virtual const store::EndpointLogonRow* logon(uint32_t) const { return nullptr; }
    // True while the source times something on the event loop to the millisecond (join mode's
    // clock measurements): the controller then runs handlers as they come instead of in passes.
    virtual bool prompt_io() const { return false; }
};

// Where the step machine meets the other hosts of a pool.
enum class SyncPoint { settle, window_open, window_close };
const char* to_string(SyncPoint p);

struct SyncRequest {
    SyncPoint point = SyncPoint::settle;
    size_t step = 0;       // 0-based step index
    uint32_t repeat = 0;   // window index (window_open, window_close)
    uint32_t target = 0;   // the step's session count (this host's share is the source's business)
    std::string decided;   // window_close only: why this host ends the step early ("" : on time)
};

struct SyncResult {
    bool ok = true;        // false: a host was lost or the deadline passed; the run ends
    std::string detail;    // what happened, for the run's end
    std::string decided;   // another host ended the step early, and why ("" : none did)
};

// Seam "step coordinator": before a step's settle and at each window open and close the machine
// arrives here and waits until `done` is called. A single host answers at once; an MPI pool
// answers from poll() when the collective completes, or with !ok at its deadline.
class StepCoordinator {
public:
    virtual ~StepCoordinator() = default;
    virtual void arrive(const SyncRequest& r, std::function<void(const SyncResult&)> done) = 0;
    // Called on every pass of the event loop: progress a pending collective, watch its deadline.
    virtual void poll() {}
    // Another host decided the current step (its reason), so this host ends it too.
    virtual std::optional<std::string> remote_decided() { return std::nullopt; }
};

class LocalCoordinator final : public StepCoordinator {
public:
    void arrive(const SyncRequest&, std::function<void(const SyncResult&)> done) override { done(SyncResult{}); }
};

// What a finished step looks like to a planner.
struct StepRecord {
    size_t index = 0;
    uint32_t target = 0;
    core::StepVerdict verdict;    // pooled over the step's windows
    std::string decided;          // "" unless the step ended early (already decided), and why
    int64_t started_ns = 0, ended_ns = 0;
};

// Seam "step planner": which session count comes next, how many windows a step measures, and
// when the run stops.
class StepPlanner {
public:
    virtual ~StepPlanner() = default;
    virtual std::optional<uint32_t> first() = 0;
    // Asked when a window closes (`judged` holds the windows judged so far, possibly fewer than
    // `closed`) and again once all are judged: true opens another window of this step.
    virtual bool more_windows(uint32_t closed, std::span<const core::StepVerdict> judged) = 0;
    // After a step's pooled verdict: the next count, or nullopt to end the run.
    virtual std::optional<uint32_t> next(std::span<const StepRecord> done) = 0;
    // Steps this plan will take at most, for "step k of n" (0: not known in advance).
    virtual size_t planned_steps() const = 0;
    // The run's max density when the planner decides it (an adaptive search's steps are not in
    // ramp order, so core::max_density over them would not be the answer); nullopt: the ramp rule.
    virtual std::optional<core::MaxDensity> answer() const { return std::nullopt; }
    // True when next() returned nullopt because SIGINT / SIGTERM cut its wait short (a pool's
    // vote): the run's own signal handling ends the run, not the planner.
    virtual bool interrupted() const { return false; }
};

// Today's ramp: the plan's list of counts, `repeats` windows each, stopping after the last step
// or (stop = "first-failure") at the first failed one.
class LinearPlanner final : public StepPlanner {
public:
    LinearPlanner(std::vector<uint32_t> steps, uint32_t repeats, bool stop_at_first_failure)
        : steps_(std::move(steps)), repeats_(repeats ? repeats : 1), stop_at_failure_(stop_at_first_failure) {}
    std::optional<uint32_t> first() override;
    bool more_windows(uint32_t closed, std::span<const core::StepVerdict> judged) override;
    std::optional<uint32_t> next(std::span<const StepRecord> done) override;
    size_t planned_steps() const override { return steps_.size(); }

private:
    std::vector<uint32_t> steps_;
    uint32_t repeats_;
    bool stop_at_failure_;
};

}  // namespace seatmark::orchestrator
