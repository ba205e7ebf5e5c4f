// The step machine when verdicts come later than they are asked (the controller judges on a
// thread of its own, orchestrator/judge_worker.h): it waits in "judging" and goes on polling, asks
// one judgement at a time, and drops a verdict that comes after the run halted.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "orchestrator/step_machine.h"
#include "tests/orchestrator/step_fakes.h"

using namespace seatmark;
using namespace seatmark::orchestrator;
using namespace seatmark::orchestrator::fakes;

namespace {
bool logged(const Rig& r, const std::string& line) {
    return std::find(r.hooks.log.begin(), r.hooks.log.end(), line) != r.hooks.log.end();
}
}  // namespace

TEST_CASE("step machine: verdicts that come later are waited for, one judgement at a time, in order") {
    Rig r({1, 2}, 2, true);
    r.hooks.hold_verdicts = true;
    r.start();
    r.run_for(20000 * ms);
    // Window 0.0 closed at 5 s and is being judged; 0.1 opened and closed meanwhile, and waits.
    CHECK(r.hooks.held.size() == 1);
    CHECK(r.hooks.judged.size() == 1);
    CHECK(r.m->phase() == StepMachine::Phase::judging);
    CHECK(std::string(r.m->phase_name()) == "judging");
    CHECK(r.m->awaiting_verdict());
    CHECK_FALSE(logged(r, "judge 0.1"));
    CHECK(r.m->done().empty());
    REQUIRE(r.release());  // 0.0's verdict: 0.1 is asked at once (its telemetry is in)
    CHECK(r.hooks.judged.size() == 2);
    REQUIRE(r.release());  // 0.1's: the step pooled is asked
    CHECK(r.hooks.held.size() == 1);
    CHECK(r.hooks.log.back() == "pool 0 [2000, 8000) ms");
    CHECK(r.m->done().empty());
    REQUIRE(r.release());
    REQUIRE(r.m->done().size() == 1);
    CHECK(r.m->done()[0].verdict.pass);
    CHECK(r.m->phase() == StepMachine::Phase::starting);  // the next step began
    // The second step (it began at 21 s, when the verdict came) the same way, each verdict given
    // on the loop's next pass after it was asked.
    for (int i = 0; i < 200 && !r.hooks.run_ok; ++i) {
        r.run_for(250 * ms);
        while (r.release()) {
        }
    }
    REQUIRE(r.hooks.run_ok.has_value());
    CHECK(*r.hooks.run_ok);
    CHECK(r.m->done().size() == 2);
    CHECK(r.hooks.log == std::vector<std::string>{
                             "begin 0 target 1 of 2", "open 0.0", "close 0.0", "open 0.1", "judge 0.0", "close 0.1",
                             "verdict in", "judge 0.1", "verdict in", "pool 0 [2000, 8000) ms", "verdict in",
                             "verdict 0 pass", "begin 1 target 2 of 2", "open 1.0", "close 1.0", "open 1.1",
                             "judge 1.0", "verdict in", "close 1.1", "judge 1.1", "verdict in",
                             "pool 1 [22250, 28250) ms", "verdict in", "verdict 1 pass", "over"});
}

TEST_CASE("step machine: a step decided while a window's verdict is on its way still ends once it comes") {
    Rig r({1}, 3, true);
    r.hooks.hold_verdicts = true;
    r.start();
    r.run_for(6000 * ms);  // 0.0 closed at 5 s, being judged; 0.1 open
    REQUIRE(r.hooks.held.size() == 1);
    r.hooks.failures = 1;  // a session fails: the step is decided, 0.1 closes now
    r.run_for(250 * ms);
    CHECK(r.hooks.decided.size() == 1);
    CHECK(r.m->phase() == StepMachine::Phase::judging);
    CHECK(r.hooks.judged.size() == 1);
    while (r.release()) {
    }
    REQUIRE(r.hooks.run_ok.has_value());
    REQUIRE(r.m->done().size() == 1);
    CHECK(r.hooks.judged.size() == 2);  // 0.2 never opened
    CHECK_FALSE(r.m->done()[0].decided.empty());
}

TEST_CASE("step machine: halting while a verdict is on its way drops it, and nothing is asked after") {
    Rig r({1, 2}, 1, true);
    r.hooks.hold_verdicts = true;
    r.start();
    r.run_for(6000 * ms);
    REQUIRE(r.hooks.held.size() == 1);
    CHECK(r.m->awaiting_verdict());
    r.m->halt();
    CHECK(r.m->phase() == StepMachine::Phase::over);
    REQUIRE(r.release());  // the cancelled judgement's verdict comes back anyway
    r.run_for(20000 * ms);
    CHECK(r.hooks.held.empty());
    CHECK(r.m->done().empty());
    CHECK_FALSE(r.hooks.run_ok.has_value());
    CHECK_FALSE(logged(r, "verdict 0 pass"));
    CHECK(r.hooks.judged.size() == 1);
}
