// The soak's short version: bench_soak (bench/bench_soak.cpp) for 15 s with 8 synthetic sessions.
// It exits 1 when a frame is unaccounted for, a session did not say BYE, descriptors or threads
// grew between the first and the last stretch of the recorded window, the run left descriptors or
// threads open after it returned, or the report on the result failed.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/process.h"

using namespace seatmark::test;

TEST_CASE("a short soak: every frame accounted for, descriptors and threads flat, the report reads the result") {
    auto r = run_process({SEATMARK_BENCH_SOAK, "0.25", "8"}, 180);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("frames unaccounted (sent - stored - lost)  0   (sessions without BYE: 0;") != std::string::npos);
    CHECK(r.out.find("run finished") != std::string::npos);
    // The stretches come from the window the database recorded: after 5 s of settling from the step's
    // start, which a slow build reaches later ("(6-21 s" under ASan).
    const auto at = r.out.find("of the window (");
    REQUIRE(at != std::string::npos);
    CHECK(std::stoi(r.out.substr(at + 15)) >= 5);
    CHECK(r.out.find("(goal: no more)") != std::string::npos);
    CHECK(r.out.find("left open after the run") == std::string::npos);
}
