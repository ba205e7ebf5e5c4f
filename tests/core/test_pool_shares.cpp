// What a pool run's plan placed per step and rank (core/pool_shares.h), and the one idle rule
// (core::sits_out): the answers follow from the plan's list and placement by hand.
#include <doctest/doctest.h>

#include "core/plan.h"
#include "core/pool_rules.h"
#include "core/pool_shares.h"

using namespace seatmark::core;

namespace {

std::string plan_text(const std::string& list, const std::string& pool) {
    return "name = \"p\"\n[run]\nallow_software = true\nstop = \"max\"\n[steps]\nlist = [" + list +
           "]\nsettle = \"1s\"\nwindow = \"2s\"\n[[mix]]\nprofile = \"ci-tiny\"\n[pool]\n" + pool;
}

}  // namespace

TEST_CASE("pool shares: breadth-first steps of 2, 4 on 2 ranks place 1 + 1, 2 + 2") {
    const std::vector<std::optional<int>> hosts = {std::nullopt, std::nullopt};
    const auto p = planned_pool_steps(plan_text("2, 4", ""), "t", hosts, 2);
    REQUIRE(p.size() == 2);
    REQUIRE(p[0]);
    CHECK(p[0]->total == 2);
    CHECK(p[0]->shares == std::vector<uint32_t>{1, 1});
    REQUIRE(p[1]);
    CHECK(p[1]->total == 4);
    CHECK(p[1]->shares == std::vector<uint32_t>{2, 2});
}

TEST_CASE("pool shares: a scaling series restarts the list on each pool size, per-host placement multiplies") {
    // [scaling] hosts = [1, 2], per-host 1, 2: steps on 1 host (1, 2), then on 2 hosts (1, 2 each).
    const std::vector<std::optional<int>> hosts = {1, 1, 2, 2};
    const auto p = planned_pool_steps(plan_text("1, 2", "placement = \"per-host\"\n[scaling]\nhosts = [1, 2]\n"), "t", hosts, 2);
    REQUIRE(p.size() == 4);
    const uint32_t total[4] = {1, 2, 2, 4};
    const std::vector<uint32_t> shares[4] = {{1, 0}, {2, 0}, {1, 1}, {2, 2}};
    for (size_t i = 0; i < 4; ++i) {
        CAPTURE(i);
        REQUIRE(p[i]);
        CHECK(p[i]->total == total[i]);
        CHECK(p[i]->shares == shares[i]);
    }
}

TEST_CASE("pool shares: nothing where the plan does not say") {
    const std::vector<std::optional<int>> hosts = {std::nullopt, std::nullopt, std::nullopt};
    const auto p = planned_pool_steps(plan_text("2, 4", ""), "t", hosts, 2);
    REQUIRE(p.size() == 3);
    CHECK_FALSE(p[2]);  // beyond the list
    CHECK(planned_pool_steps("not toml [", "t", hosts, 2).empty());
}

TEST_CASE("pool shares: a host sits a step out beyond the series' pool size or with a share of 0") {
    CHECK(sits_out(1, 1));
    CHECK_FALSE(sits_out(0, 1));
    CHECK(sits_out(1, 2, 0u));           // breadth-first 1 session on 2 hosts: rank 1 runs none
    CHECK_FALSE(sits_out(1, 2, 1u));
    CHECK(sits_out(std::nullopt, std::nullopt, 0u));  // a joined host without a session in the step
    CHECK_FALSE(sits_out(std::nullopt, std::nullopt));
}
