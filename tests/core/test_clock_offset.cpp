#include <doctest/doctest.h>

#include <vector>

#include "core/clock_offset.h"

using namespace seatmark::core;

TEST_CASE("clock offset: the least-delay round trip wins, its half round trip is the uncertainty") {
    // Peer clock = orchestrator clock - 1000; one-way delays differ per sample.
    std::vector<ClockSample> s = {
        {0, -1000 + 300, 900},          // rtt 900, asymmetric
        {10000, 10000 - 1000 + 50, 10100},  // rtt 100: the one taken
        {20000, 20000 - 1000 + 10, 25000},  // rtt 5000
    };
    auto o = estimate_offset(s);
    REQUIRE(o);
    CHECK(o->rtt_ns == 100);
    CHECK(o->uncertainty_ns == 50);
    CHECK(o->offset_ns == 1000);
    CHECK(o->samples == 3);
    CHECK(!estimate_offset(std::vector<ClockSample>{{10, 0, 5}}));
    CHECK(!estimate_offset({}));
}
