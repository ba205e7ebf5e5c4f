// The one knee rule (core/step_rules.h find_knee) on a linear ramp and on an adaptive search's
// probes, which come in any order and may repeat a count.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/step_rules.h"

using namespace seatmark::core;

TEST_CASE("knee: the fewest sessions above baseline x (1 + margin), in ramp or probe order") {
    const std::vector<uint32_t> ramp = {1, 2, 3, 4};
    Knee k = find_knee(ramp, std::vector<double>{16, 18, 20.5, 30}, 25);
    REQUIRE(k.step);
    CHECK(*k.step == 2);
    CHECK(k.threshold_ms == doctest::Approx(20));
    // Probes 1, 2, 4, 8, then bisection 6, 5, and 4 re-measured: the knee is at 5 (the fewest above
    // 20 ms), the most probed below it 4, the baseline the 1-session probe.
    const std::vector<uint32_t> probes = {1, 2, 4, 8, 6, 5, 4};
    k = find_knee(probes, std::vector<double>{16, 17, 19, 40, 31, 24, 19.5}, 25);
    REQUIRE(k.step);
    CHECK(probes[*k.step] == 5);
    REQUIRE(k.below);
    CHECK(*k.below == 4);
    CHECK(*k.baseline_step == 0);
    // An unmeasured first probe: the baseline is the fewest sessions that were measured.
    k = find_knee(probes, std::vector<double>{NAN, 16, 19, 40, 31, 24, 19.5}, 25);
    CHECK(probes[*k.baseline_step] == 2);
    CHECK(probes[*k.step] == 5);
    CHECK_FALSE(find_knee(ramp, std::vector<double>{NAN, NAN, NAN, NAN}, 25).has_baseline);
    CHECK_FALSE(find_knee(ramp, std::vector<double>{16, 18, 20, 19}, 25).step);  // reaching is not leaving
}
