// Plan keys of issue 17: [steps] search = "adaptive" (min, max, resolution, max_repeats) and [cost].
#include <doctest/doctest.h>

#include "core/plan.h"
#include "tests/support/input_error.h"

using namespace seatmark;
using namespace seatmark::core;
using test::contains;
using test::error_of;

namespace {
std::string plan(const std::string& steps, const std::string& extra = "") {
    return "name = \"p\"\n[steps]\n" + steps + "\nsettle = \"1s\"\nwindow = \"2s\"\n[[mix]]\nprofile = \"ci-tiny\"\n" + extra;
}
}  // namespace

TEST_CASE("an adaptive search plan: min, max, resolution, repeats and max_repeats") {
    Plan p = parse_plan(plan("search = \"adaptive\"\nmin = 2\nmax = 64\nresolution = 2\nmax_repeats = 5"), "p.toml");
    CHECK(p.search.adaptive);
    CHECK(p.search.min == 2);
    CHECK(p.search.max == 64);
    CHECK(p.search.resolution == 2);
    CHECK(p.search.max_repeats == 5);
    CHECK(p.repeats == 2);  // a probe needs two windows for a confidence interval
    CHECK(p.max_sessions() == 64);
    CHECK(p.planned_seconds() > 0);
    Plan lin = parse_plan(plan("list = [1, 2]"), "p.toml");
    CHECK_FALSE(lin.search.adaptive);
    CHECK(parse_plan(plan("search = \"linear\"\nlist = [1, 2]"), "p.toml").steps.size() == 2);
}

TEST_CASE("bad adaptive search keys are errors naming the key") {
    CHECK(contains(error_of([] { parse_plan(plan("search = \"adaptive\"\nmin = 1"), "p.toml"); }), "missing key 'steps.max'"));
    CHECK(contains(error_of([] { parse_plan(plan("search = \"adaptive\"\nmin = 8\nmax = 4"), "p.toml"); }), ">= min (8)"));
    CHECK(contains(error_of([] { parse_plan(plan("search = \"adaptive\"\nmax = 4\nlist = [1]"), "p.toml"); }),
                   "not list or start/increment"));
    CHECK(contains(error_of([] { parse_plan(plan("search = \"adaptive\"\nmax = 4\nrepeats = 4\nmax_repeats = 3"), "p.toml"); }),
                   ">= repeats (4)"));
    CHECK(contains(error_of([] { parse_plan(plan("search = \"bisect\"\nmax = 4"), "p.toml"); }), "steps.search"));
}

TEST_CASE("[cost] host_per_hour and currency") {
    Plan p = parse_plan(plan("list = [1]", "[cost]\nhost_per_hour = 3.20\ncurrency = \"EUR\"\n"), "p.toml");
    REQUIRE(p.cost.host_per_hour);
    CHECK(*p.cost.host_per_hour == doctest::Approx(3.2));
    CHECK(p.cost.currency == "EUR");
    CHECK_FALSE(parse_plan(plan("list = [1]"), "p.toml").cost.host_per_hour);
    CHECK(contains(error_of([] { parse_plan(plan("list = [1]", "[cost]\ncurrency = \"EUR\"\n"), "p.toml"); }),
                   "host_per_hour"));
    CHECK(contains(error_of([] { parse_plan(plan("list = [1]", "[cost]\nhost_per_hour = -1\n"), "p.toml"); }),
                   "host_per_hour"));
}
