#include <doctest/doctest.h>

#include <vector>

#include "core/clock_offset.h"

using namespace seatmark::core;

TEST_CASE("clock offset: the least-delay round trip wins, its half round trip is the uncertainty") {
    // Peer clock = orchestrator clock - 1000; one-way delays differ per sample. (Both clocks well
    // past 0: a peer stamp below 1 is no clock reading.)
    const int64_t t = 1'000'000;
    std::vector<ClockSample> s = {
        {t + 0, t - 1000 + 300, t + 900},              // rtt 900, asymmetric
        {t + 10000, t + 10000 - 1000 + 50, t + 10100},  // rtt 100: the one taken
        {t + 20000, t + 20000 - 1000 + 10, t + 25000},  // rtt 5000
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

TEST_CASE("clock offset: a peer stamp no clock reads is no usable round trip") {
    std::vector<ClockSample> s = {{100, -5, 110}, {200, 0, 205}, {300, INT64_MAX, 301}, {400, 1000, 420}};
    auto o = estimate_offset(s);
    REQUIRE(o);
    CHECK(o->samples == 1);
    CHECK(o->offset_ns == 400 + 10 - 1000);
}

TEST_CASE("clock offset: round trips that cannot all be true are told apart from honest ones") {
    // Honest: every peer stamp lies between its PING and PONG on the peer's clock (peer = this - 1000 s).
    const int64_t d = 1'000'000'000'000;
    std::vector<ClockSample> honest = {{d + 0, 1, d + 2'000'000}, {d + 10'000'000, 10'090'000, d + 10'100'000},
                                       {d + 20'000'000, 20'040'000, d + 20'050'001}};
    for (auto& x : honest) x.t_peer_ns += 5'000;  // anywhere inside the round trip
    CHECK(disagreement(honest).empty());
    // One PONG stamped 10 s off the peer's clock (an absurd offset): its range misses the others'.
    auto off = honest;
    off[1].t_peer_ns += 10'000'000'000;
    const std::string why = disagreement(off);
    CHECK(why.find("PONG round trips disagree: round trip 1 gives the peer's clock offset (added to its stamps) +1000.000995 s +- 0.001000 s, round trip 2 +989.999955 s") == 0);
    // Half a millisecond further: round trips of 2 ms and 0.1 ms and the 1 ms slack still cover it; 2.5 ms do not.
    auto near = honest;
    near[1].t_peer_ns += 500'000;
    CHECK(disagreement(near).empty());
    near[1].t_peer_ns += 2'000'000;
    CHECK_FALSE(disagreement(near).empty());
    // Between re-syncs the clocks may drift 1 ms a second, and no more.
    ClockOffset a{5'000, 100, 200, 8}, b{5'000 + 11'000'000, 100, 200, 4};
    CHECK(disagreement(a, 0, b, 10'000'000'000).empty());  // 11 ms in 10 s: 10 ms drift + 1 ms slack
    b.offset_ns += 1'000;
    CHECK(disagreement(a, 0, b, 10'000'000'000).find("the clock re-sync disagrees with the offset in use") == 0);
}
