// The step machine with every seam faked (tests/orchestrator/step_fakes.h): no processes, sockets
// or real time; each case reads as the sequence a run goes through.
#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/step_rules.h"
#include "orchestrator/step_machine.h"
#include "tests/orchestrator/step_fakes.h"

using namespace seatmark;
using namespace seatmark::orchestrator;
using namespace seatmark::orchestrator::fakes;

TEST_CASE("step machine: a linear ramp settles, measures its windows back to back and judges each") {
    Rig r({1, 2}, 2, true);
    r.start();
    CHECK(r.sessions.calls == std::vector<std::string>{"start 1"});
    CHECK(r.m->phase() == StepMachine::Phase::settling);  // everyone said HELLO at once
    r.run_for(20000 * ms);
    REQUIRE(r.hooks.run_ok.has_value());
    CHECK(*r.hooks.run_ok);
    CHECK(r.hooks.log == std::vector<std::string>{
                             "begin 0 target 1 of 2", "open 0.0", "close 0.0", "open 0.1", "judge 0.0", "close 0.1",
                             "judge 0.1", "pool 0 [2000, 8000) ms", "verdict 0 pass", "begin 1 target 2 of 2",
                             "open 1.0", "close 1.0", "open 1.1", "judge 1.0", "close 1.1", "judge 1.1",
                             "pool 1 [10000, 16000) ms", "verdict 1 pass", "over"});
    CHECK(r.sessions.calls == std::vector<std::string>{"start 1", "start 2"});
    // Windows: 3 s each, the second opening where the first closed.
    REQUIRE(r.hooks.judged.size() == 4);
    CHECK(r.rel_ms(r.hooks.judged[0].ws) == 2000);
    CHECK(r.rel_ms(r.hooks.judged[0].we) == 5000);
    CHECK(r.hooks.judged[1].ws == r.hooks.judged[0].we);
    CHECK(r.rel_ms(r.hooks.judged[1].we) == 8000);
    CHECK(r.m->done().size() == 2);
    CHECK(r.m->phase() == StepMachine::Phase::over);
}

TEST_CASE("step machine: the stop rule ends the run at the first failed step, or goes on with stop = max") {
    SUBCASE("first failure") {
        Rig r({1, 2, 3}, 1, true);
        r.hooks.window_pass = {true, false};
        r.start();
        r.run_for(30000 * ms);
        REQUIRE(r.m->done().size() == 2);
        CHECK_FALSE(r.m->done()[1].verdict.pass);
        CHECK(r.m->done()[1].verdict.reasons.front() == "a measurement window failed: scripted");
        CHECK(r.hooks.log.back() == "over");
    }
    SUBCASE("max") {
        Rig r({1, 2, 3}, 1, false);
        r.hooks.window_pass = {true, false};
        r.start();
        r.run_for(30000 * ms);
        CHECK(r.m->done().size() == 3);
        CHECK(r.sessions.calls.back() == "start 3");
    }
}

TEST_CASE("step machine: a closed window is judged once its telemetry is in, or at the backstop") {
    Rig r({1}, 1, true);
    r.hooks.telemetry_in = false;
    r.start();
    r.run_for(5000 * ms);  // settle 2 s, window to 5 s
    CHECK(r.hooks.log.back() == "close 0.0");
    CHECK(r.m->phase() == StepMachine::Phase::judging);
    r.run_for(1000 * ms);
    CHECK(r.hooks.judged.empty());
    r.hooks.telemetry_in = true;
    r.run_for(250 * ms);
    CHECK(r.hooks.judged.size() == 1);

    Rig late({1}, 1, true);
    late.hooks.telemetry_in = false;
    late.start();
    late.run_for(5000 * ms + 14750 * ms);
    CHECK(late.hooks.judged.empty());
    late.run_for(500 * ms);  // past the 15 s backstop after the close
    CHECK(late.hooks.judged.size() == 1);
    CHECK(*late.hooks.run_ok);
}

TEST_CASE("step machine: a step with more failures than allowed ends at once, judged from its start") {
    SUBCASE("while settling: no settle time left, no window spent") {
        Rig r({2, 4}, 2, true);
        r.start();
        r.run_for(500 * ms);
        CHECK(r.m->phase() == StepMachine::Phase::settling);
        r.hooks.failures = 1;  // failures_allowed = 0
        r.run_for(250 * ms);
        REQUIRE(r.hooks.decided.size() == 1);
        CHECK(r.hooks.decided[0] == "1 session(s) failed, 0 allowed");
        REQUIRE(r.hooks.judged.size() == 1);  // telemetry is in: judged in the same pass
        CHECK(r.rel_ms(r.hooks.judged[0].ws) == 0);    // the step's start
        CHECK(r.rel_ms(r.hooks.judged[0].we) == 750);  // now
        REQUIRE(r.m->done().size() == 1);
        CHECK(r.m->done()[0].decided == "1 session(s) failed, 0 allowed");
        CHECK_FALSE(r.m->done()[0].verdict.pass);
        CHECK(*r.hooks.run_ok);  // first failure: the run is over after 0.75 s, not 2 + 2 x 3 s
        CHECK(r.m->phase() == StepMachine::Phase::over);
    }
    SUBCASE("while measuring: the window closes now, no repeat follows") {
        Rig r({2}, 3, true);
        r.start();
        r.run_for(3000 * ms);  // 1 s into the first window
        r.hooks.failures = 1;
        r.run_for(250 * ms);
        REQUIRE(r.hooks.judged.size() == 1);
        CHECK(r.rel_ms(r.hooks.judged[0].ws) == 2000);
        CHECK(r.rel_ms(r.hooks.judged[0].we) == 3250);
        CHECK(r.m->done().size() == 1);
        CHECK(r.hooks.log == std::vector<std::string>{"begin 0 target 2 of 1", "open 0.0", "decided 0", "close 0.0",
                                                      "judge 0.0", "pool 0 [2000, 3250) ms", "verdict 0 fail", "over"});
    }
    SUBCASE("failures within what the SLA allows change nothing") {
        Rig r({2}, 1, true);
        r.times.failures_allowed = 1;
        r.start();
        r.hooks.failures = 1;
        r.run_for(10000 * ms);
        CHECK(r.hooks.decided.empty());
        CHECK(r.rel_ms(r.hooks.judged.at(0).we) == 5000);
    }
}

TEST_CASE("step machine: a step without a running session ends at once, but not while sessions start") {
    Rig r({2}, 1, true);
    r.times.failures_allowed = 5;
    r.sessions.hello_all = false;
    r.start();
    r.sessions.active_n = 0;  // e.g. joined sessions not connected yet
    r.run_for(3000 * ms);
    CHECK(r.hooks.decided.empty());
    CHECK(r.m->phase() == StepMachine::Phase::starting);
    r.sessions.active_n = 2;
    r.sessions.hello_all = true;
    r.run_for(1000 * ms);
    CHECK(r.m->phase() == StepMachine::Phase::settling);
    r.sessions.active_n = 0;  // both ended (not failures the SLA counts against it)
    r.run_for(250 * ms);
    REQUIRE(r.hooks.decided.size() == 1);
    CHECK(r.hooks.decided[0] == "no session of the step is running");
    CHECK(r.m->done().size() == 1);
}

TEST_CASE("step machine: every host meets the coordinator at settle, window open and window close") {
    Rig r({1}, 2, true);
    r.coord.hold = true;
    r.start();
    REQUIRE(r.coord.arrivals.size() == 1);
    CHECK(r.coord.arrivals[0].point == SyncPoint::settle);
    CHECK(r.m->phase() == StepMachine::Phase::syncing);
    CHECK(std::string(r.m->phase_name()) == "starting");
    r.run_for(5000 * ms);  // nothing moves while the pool has not agreed
    CHECK(r.timer.started == 0);
    r.coord.release();
    CHECK(r.m->phase() == StepMachine::Phase::settling);
    r.run_for(2000 * ms);
    REQUIRE(r.coord.arrivals.size() == 2);
    CHECK(r.coord.arrivals[1].point == SyncPoint::window_open);
    r.coord.release();
    r.run_for(3000 * ms);
    CHECK(r.coord.arrivals.back().point == SyncPoint::window_close);
    r.coord.release();
    CHECK(r.coord.arrivals.back().point == SyncPoint::window_open);
    CHECK(r.coord.arrivals.back().repeat == 1);
    SUBCASE("a lost host ends the run") {
        r.coord.release({false, "rank 1 did not arrive within 30 s", ""});
        CHECK_FALSE(*r.hooks.run_ok);
        CHECK(r.hooks.run_detail == "rank 1 did not arrive within 30 s");
        CHECK(r.m->phase() == StepMachine::Phase::over);
    }
    SUBCASE("another host's decision ends the step here too") {
        r.coord.release({true, "", "rank 1: 2 session(s) failed, 0 allowed"});
        REQUIRE(r.hooks.decided.size() == 1);
        r.coord.release();  // the close of the zero-length window
        r.run_for(250 * ms);
        CHECK(r.m->done().size() == 1);
        CHECK(r.m->done()[0].decided == "rank 1: 2 session(s) failed, 0 allowed");
    }
}

TEST_CASE("step machine: halting stops everything, nothing fires after it") {
    Rig r({1, 2}, 1, true);
    r.start();
    r.run_for(3000 * ms);
    r.m->halt();
    r.run_for(20000 * ms);
    CHECK(r.hooks.judged.empty());
    CHECK_FALSE(r.hooks.run_ok.has_value());
    CHECK(r.m->phase() == StepMachine::Phase::over);
}

namespace {
// A planner as adaptive search would be: down after a fail, and one more window after the judged ones.
struct DownPlanner final : StepPlanner {
    std::vector<uint32_t> counts{4, 2};
    size_t asked_more = 0;
    std::optional<uint32_t> first() override { return counts[0]; }
    bool more_windows(uint32_t closed, std::span<const core::StepVerdict> judged) override {
        ++asked_more;
        return closed < 2 && judged.size() == closed;  // a second window only once the first is judged
    }
    std::optional<uint32_t> next(std::span<const StepRecord> done) override {
        if (done.size() >= counts.size()) return std::nullopt;
        return counts[done.size()];
    }
    size_t planned_steps() const override { return 0; }
};
}  // namespace

TEST_CASE("step machine: a planner can step down (the newest sessions stop) and ask for a window after judging") {
    Rig r({}, 1, true);
    r.planner = std::make_unique<DownPlanner>();
    r.hooks.telemetry_in = false;
    r.start();
    r.run_for(5000 * ms);  // settle + first window closed, not judged yet: no second window
    CHECK(r.hooks.log.back() == "close 0.0");
    r.hooks.telemetry_in = true;
    r.run_for(250 * ms);
    CHECK(r.hooks.log.back() == "open 0.1");  // after judging, the planner wanted another
    r.run_for(30000 * ms);
    CHECK(r.sessions.calls == std::vector<std::string>{"start 4", "stop 2"});
    CHECK(r.m->done().size() == 2);
    CHECK(r.hooks.log.front() == "begin 0 target 4 of 0");
}

TEST_CASE("step machine: a planner with no step ends the run at once") {
    Rig r({}, 1, true);
    r.start();
    CHECK(*r.hooks.run_ok);
    CHECK(r.m->done().empty());
}

TEST_CASE("step machine: a source that cannot reach the count ends the starting step with its reason") {
    Rig r({30, 40}, 2, false);
    r.times.failures_allowed = 100;
    r.sessions.hello_all = false;
    r.start();
    r.run_for(2000 * ms);
    CHECK(r.m->phase() == StepMachine::Phase::starting);
    r.sessions.short_by = "27 of 30 sessions joined within 5 min";
    r.run_for(250 * ms);
    REQUIRE(r.m->done().size() == 1);
    CHECK(r.m->done()[0].decided == "27 of 30 sessions joined within 5 min");
    CHECK(r.rel_ms(r.hooks.judged.at(0).ws) == 0);
    CHECK(r.hooks.judged.size() == 1);  // one window from the step's start, not two
    CHECK(r.m->step().target == 40);    // stop = max: the run goes on
}
