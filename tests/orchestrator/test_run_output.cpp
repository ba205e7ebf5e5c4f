// The run's status line (orchestrator/run_output.h): what the time left bounds, and sessions still
// starting kept out of the frame rate and counted instead.
#include <doctest/doctest.h>

#include <cmath>

#include "orchestrator/run_output.h"

using namespace seatmark::orchestrator;

namespace {

StatusSnapshot snapshot(const char* phase, double left) {
    StatusSnapshot s;
    s.step = 3, s.steps = 3, s.target = 3, s.alive = 3, s.drawing = 3;
    s.phase = phase, s.phase_left_s = left;
    s.fps_median = 59.5, s.p95_ms = 90.6, s.passed = 2, s.elapsed_s = 40;
    return s;
}

}  // namespace

TEST_CASE("status line: a step's start shows its deadline, settle and the window their time left") {
    const std::string starting = status_text(snapshot("starting", 120));
    CHECK(starting.find("step 3/3 starting, up to 120s more |") != std::string::npos);
    CHECK(starting.find("left") == std::string::npos);  // "starting 120s left" read as the step's length
    CHECK(status_text(snapshot("settling", 4)).find("step 3/3 settling, 4s left |") != std::string::npos);
    CHECK(status_text(snapshot("measuring", 20)).find("step 3/3 measuring, 20s left |") != std::string::npos);
    CHECK(status_text(snapshot("judging", 0)).find("step 3/3 judging |") != std::string::npos);
}

TEST_CASE("status line: sessions not drawing yet are counted, not read as a frame rate of 0") {
    StatusSnapshot s = snapshot("settling", 4);
    s.drawing = 1;
    s.fps_median = 60;  // the one drawing session's
    const std::string t = status_text(s);
    CHECK(t.find("sessions 3/3 (2 not drawing yet)") != std::string::npos);
    CHECK(t.find("frames/s 60.0 (median drawing session, last 1 s) p95 90.6 ms") != std::string::npos);
    s.drawing = 0;
    s.fps_median = NAN;  // none drawing: no median
    CHECK(status_text(s).find("frames/s n/a") != std::string::npos);
    CHECK(status_text(snapshot("measuring", 3)).find("sessions 3/3 |") != std::string::npos);
}
