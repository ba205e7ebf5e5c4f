#pragma once
// Fakes of every step-machine seam (no processes, sockets or real time), shared by the step
// machine's tests and the adaptive planner's. The fakes record what they were asked, so each case
// reads as the sequence a run goes through.
#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/step_rules.h"
#include "orchestrator/step_machine.h"

namespace seatmark::orchestrator::fakes {

constexpr int64_t ms = 1'000'000;

struct FakeClock final : Clock {
    int64_t t = 1000 * ms;
    int64_t now_ns() const override { return t; }
};

struct FakeTimer final : Timer {
    const FakeClock& clock;
    explicit FakeTimer(const FakeClock& c) : clock(c) {}
    std::optional<int64_t> deadline;
    std::function<void()> fire;
    int started = 0;
    void start(int64_t delay_ns, std::function<void()> f) override {
        deadline = clock.t + delay_ns;
        fire = std::move(f);
        ++started;
    }
    void cancel() override { deadline.reset(); }
};

struct FakeSessions final : SessionSource {
    uint32_t active_n = 0;
    bool hello_all = true;  // started sessions say HELLO at once
    std::vector<std::string> calls;
    void start_up_to(uint32_t n) override {
        calls.push_back("start " + std::to_string(n));
        active_n = n;
    }
    void stop_newest(uint32_t count) override {
        calls.push_back("stop " + std::to_string(count));
        active_n -= count;
    }
    uint32_t active() const override { return active_n; }
    bool ready() const override { return hello_all; }
    std::optional<std::string> short_by;
    std::optional<std::string> shortfall() const override { return short_by; }
    void stop_all() override { calls.push_back("stop all"); }
    void kill_all() override { calls.push_back("kill all"); }
};

struct FakeHooks final : StepHooks {
    std::vector<std::string> log;
    struct Window {
        size_t step;
        uint32_t repeat;
        int64_t ws, we;
    };
    std::vector<Window> judged;
    bool telemetry_in = true;
    uint32_t failures = 0;
    std::deque<bool> window_pass;  // scripted window verdicts (pass when empty)
    // When set, judges each window instead (a fake host's figures per step and window).
    std::function<core::StepVerdict(const StepContext&, uint32_t)> window_of;
    std::optional<bool> run_ok;
    std::string run_detail;
    std::vector<std::string> decided;

    void step_begun(const StepContext& s, size_t planned) override {
        log.push_back("begin " + std::to_string(s.index) + " target " + std::to_string(s.target) + " of " +
                      std::to_string(planned));
    }
    void window_opened(const StepContext& s, uint32_t r, int64_t) override {
        log.push_back("open " + std::to_string(s.index) + "." + std::to_string(r));
    }
    void window_closed(const StepContext& s, uint32_t r, int64_t, int64_t) override {
        log.push_back("close " + std::to_string(s.index) + "." + std::to_string(r));
    }
    bool telemetry_past(int64_t) const override { return telemetry_in; }
    uint32_t step_failures() const override { return failures; }
    // Verdicts are given at once unless `hold_verdicts`: then they wait in `held` until release().
    bool hold_verdicts = false;
    std::deque<std::pair<std::string, VerdictDone>> held;  // what was judged, and its `done`
    std::deque<core::StepVerdict> held_verdicts;
    void give(const std::string& what, core::StepVerdict v, VerdictDone done) {
        if (!hold_verdicts) {
            done(std::move(v));
            return;
        }
        held.emplace_back(what, std::move(done));
        held_verdicts.push_back(std::move(v));
    }
    // Gives the oldest held verdict; false when none is held.
    bool release() {
        if (held.empty()) return false;
        auto done = std::move(held.front().second);
        auto v = std::move(held_verdicts.front());
        held.pop_front();
        held_verdicts.pop_front();
        log.push_back("verdict in");
        done(std::move(v));
        return true;
    }
    void judge_window(const StepContext& s, uint32_t r, int64_t ws, int64_t we, VerdictDone done) override {
        judged.push_back({s.index, r, ws, we});
        log.push_back("judge " + std::to_string(s.index) + "." + std::to_string(r));
        if (window_of) {
            give("window", window_of(s, r), std::move(done));
            return;
        }
        core::StepVerdict v;
        v.target = s.target;
        v.pass = window_pass.empty() ? true : window_pass.front();
        if (!window_pass.empty()) window_pass.pop_front();
        if (!v.pass) v.reasons.push_back("scripted");
        give("window", std::move(v), std::move(done));
    }
    void judge_step(const StepContext& s, int64_t t0, int64_t t1, std::span<const core::StepVerdict> windows,
                    VerdictDone done) override {
        log.push_back("pool " + std::to_string(s.index) + " [" + std::to_string((t0 - 1000 * ms) / ms) + ", " +
                      std::to_string((t1 - 1000 * ms) / ms) + ") ms");
        core::StepVerdict v;
        v.target = s.target;
        v.pass = failures == 0;
        core::fold_windows(v, windows);
        give("pool", std::move(v), std::move(done));
    }
    void step_decided(const StepContext& s, const std::string& why) override {
        decided.push_back(why);
        log.push_back("decided " + std::to_string(s.index));
    }
    void step_judged(const StepRecord& r, size_t) override {
        log.push_back(std::string("verdict ") + std::to_string(r.index) + (r.verdict.pass ? " pass" : " fail"));
    }
    void run_over(bool ok, const std::string& detail) override {
        run_ok = ok;
        run_detail = detail;
        log.push_back(ok ? "over" : "over: " + detail);
    }
};

// Answers at once, or holds every arrival until released.
struct FakeCoordinator final : StepCoordinator {
    bool hold = false;
    std::vector<SyncRequest> arrivals;
    std::vector<std::function<void(const SyncResult&)>> waiting;
    void arrive(const SyncRequest& r, std::function<void(const SyncResult&)> done) override {
        arrivals.push_back(r);
        if (hold)
            waiting.push_back(std::move(done));
        else
            done(SyncResult{});
    }
    void release(SyncResult res = {}) {
        auto w = std::move(waiting);
        waiting.clear();
        for (auto& d : w) d(res);
    }
};

struct Rig {
    FakeClock clock;
    FakeTimer timer{clock};
    FakeSessions sessions;
    FakeCoordinator coord;
    FakeHooks hooks;
    StepTimes times;
    std::unique_ptr<StepPlanner> planner;
    std::unique_ptr<StepMachine> m;

    explicit Rig(std::vector<uint32_t> steps, uint32_t repeats = 1, bool stop_first = true) {
        times.settle_ns = 2000 * ms;
        times.window_ns = 3000 * ms;
        times.judge_backstop_ns = 15000 * ms;
        planner = std::make_unique<LinearPlanner>(std::move(steps), repeats, stop_first);
    }
    void start() {
        m = std::make_unique<StepMachine>(clock, timer, sessions, coord, *planner, hooks, times);
        m->start();
        m->poll();  // the event loop's first pass, at the same instant
    }
    // Moves time on in 250 ms ticks as the event loop does, firing the timer when it is due.
    void run_for(int64_t ns) {
        const int64_t end = clock.t + ns;
        while (clock.t < end) {
            const int64_t next = std::min(end, clock.t + 250 * ms);
            if (timer.deadline && *timer.deadline <= next) {
                clock.t = *timer.deadline;
                timer.deadline.reset();
                timer.fire();
            } else {
                clock.t = next;
            }
            m->poll();
        }
    }
    int64_t rel_ms(int64_t t) const { return (t - 1000 * ms) / ms; }
    // The oldest held verdict comes in (as the controller's loop gives it, outside a poll).
    bool release() { return hooks.release(); }
};

}  // namespace seatmark::orchestrator::fakes
