// Pool rules: placement, the pool's verdict from its hosts', scaling efficiency, host fairness.
#include <doctest/doctest.h>

#include <cmath>

#include "common/errors.h"
#include "core/plan.h"
#include "core/pool_rules.h"

using namespace seatmark::core;

TEST_CASE("pool: breadth-first spreads evenly, the first hosts take the remainder") {
    CHECK(place_sessions(7, 3, Placement::breadth_first, 0) == std::vector<uint32_t>{3, 2, 2});
    CHECK(place_sessions(2, 3, Placement::breadth_first, 0) == std::vector<uint32_t>{1, 1, 0});
    CHECK(place_sessions(0, 2, Placement::breadth_first, 0) == std::vector<uint32_t>{0, 0});
}

TEST_CASE("pool: depth-first fills a host up to its limit, then the next") {
    CHECK(place_sessions(7, 3, Placement::depth_first, 3) == std::vector<uint32_t>{3, 3, 1});
    CHECK(place_sessions(2, 3, Placement::depth_first, 3) == std::vector<uint32_t>{2, 0, 0});
    CHECK(place_sessions(9, 3, Placement::depth_first, 3) == std::vector<uint32_t>{3, 3, 3});
}

TEST_CASE("pool: per-host runs the step's count on every host") {
    CHECK(place_sessions(4, 3, Placement::per_host, 0) == std::vector<uint32_t>{4, 4, 4});
    CHECK(pool_total(4, 3, Placement::per_host) == 12);
    CHECK(pool_total(4, 3, Placement::breadth_first) == 4);
}

TEST_CASE("pool: placement names") {
    for (Placement p : {Placement::breadth_first, Placement::depth_first, Placement::per_host})
        CHECK(parse_placement(to_string(p)) == p);
    CHECK_FALSE(parse_placement("round-robin"));
}

namespace {

SessionFigures figures(uint32_t id, double fps, double p95) {
    SessionFigures f;
    f.id = id;
    f.summary.frames = 100;
    f.summary.fps = fps;
    f.summary.p95_ms = p95;
    return f;
}

HostVerdict host(const std::string& name, bool pass, std::vector<SessionFigures> s, bool with_figures = true) {
    HostVerdict h;
    h.host = name;
    h.verdict.pass = pass;
    h.verdict.target = uint32_t(s.size());
    h.verdict.frames = 100 * s.size();
    h.verdict.fps_min = 1e9;
    for (auto& f : s) {
        h.verdict.fps_min = std::min(h.verdict.fps_min, f.summary.fps);
        h.verdict.fps_max = std::max(h.verdict.fps_max, f.summary.fps);
        h.verdict.p95_worst_ms = std::max(h.verdict.p95_worst_ms, f.summary.p95_ms);
    }
    if (!pass) h.verdict.reasons = {"session " + std::to_string(s.front().id) + ": p95 too high"};
    h.sessions_judged = s.size();
    if (with_figures) h.verdict.sessions = std::move(s);
    return h;
}

}  // namespace

TEST_CASE("pool: a span passes when every host passed, reasons name the host") {
    std::vector<HostVerdict> hs = {host("a", true, {figures(1, 60, 17), figures(2, 50, 20)}),
                                   host("b", false, {figures(3, 20, 50)})};
    StepVerdict v = pool_verdict(hs);
    CHECK_FALSE(v.pass);
    CHECK(v.reasons == std::vector<std::string>{"b: session 3: p95 too high"});
    CHECK(v.target == 3);
    CHECK(v.frames == 300);
    CHECK(v.fps_min == 20);
    CHECK(v.fps_max == 60);
    CHECK(v.p95_worst_ms == 50);
    CHECK(v.fps_median == 50);       // nearest-rank median of 20, 50, 60
    CHECK(v.p95_median_ms == 20);
    CHECK(v.fairness == doctest::Approx((130.0 * 130.0) / (3 * (3600 + 2500 + 400))));
    hs[1] = host("b", true, {figures(3, 55, 18)});
    CHECK(pool_verdict(hs).pass);
    CHECK_FALSE(pool_verdict({}).pass);
}

TEST_CASE("pool: without session figures medians and fairness are not known") {
    std::vector<HostVerdict> hs = {host("a", true, {figures(1, 60, 17)}, false), host("b", true, {figures(2, 40, 25)})};
    StepVerdict v = pool_verdict(hs);
    CHECK(v.pass);
    CHECK(std::isnan(v.fps_median));
    CHECK(std::isnan(v.fairness));
    CHECK(std::isnan(v.p95_median_ms));
    CHECK(v.fps_min == 40);
    CHECK(v.sessions.empty());
}

TEST_CASE("pool: scaling efficiency and host fairness") {
    CHECK(scaling_efficiency(8, 2, 4) == 1.0);
    CHECK(scaling_efficiency(6, 2, 4) == 0.75);
    CHECK(std::isnan(scaling_efficiency(6, 2, 0)));
    std::vector<double> same = {30, 30, 30};
    CHECK(host_fairness(same) == 1.0);
    std::vector<double> skew = {60, 20};
    CHECK(host_fairness(skew) == doctest::Approx(0.8));
}

namespace {

std::string plan_with(const std::string& pool) {
    return "name = \"p\"\n[steps]\nlist = [2, 4, 6]\nsettle = \"1s\"\nwindow = \"1s\"\n[[mix]]\nprofile = \"ci-tiny\"\n" + pool;
}

std::string plan_error(const std::string& text) {
    try {
        parse_plan(text, "pool.toml");
    } catch (const seatmark::InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("pool plan: placement, max_sessions_per_host and sync_timeout") {
    Plan p = parse_plan(plan_with("[pool]\nplacement = \"depth-first\"\nmax_sessions_per_host = 2\nsync_timeout = \"5s\"\n"),
                        "pool.toml");
    CHECK(p.pool.placement == Placement::depth_first);
    CHECK(p.pool.max_sessions_per_host == 2);
    CHECK(p.pool.sync_timeout_s == 5);
    CHECK(pool_plan_problem(p, 3).empty());
    std::string why = pool_plan_problem(p, 2);
    CHECK(why.find("pool.toml:8:") == 0);
    CHECK(why.find("holds 4 sessions, but step 3 wants 6") != std::string::npos);
    CHECK(parse_plan(plan_with(""), "pool.toml").pool.placement == Placement::breadth_first);
}

TEST_CASE("pool plan: bad values name the file and line") {
    std::string e = plan_error(plan_with("[pool]\nplacement = \"round-robin\"\n"));
    CHECK(e.find("pool.toml:9:") != std::string::npos);
    CHECK(e.find("breadth-first") != std::string::npos);
    e = plan_error(plan_with("[pool]\nplacement = \"depth-first\"\n"));
    CHECK(e.find("max_sessions_per_host") != std::string::npos);
    e = plan_error(plan_with("[pool]\nmax_sessions_per_host = 0\n"));
    CHECK(e.find("pool.toml:9:") != std::string::npos);
    e = plan_error(plan_with("[pool]\nhosts = 3\n"));
    CHECK(e.find("unknown key 'pool.hosts'") != std::string::npos);
}

TEST_CASE("pool plan: a scaling series, and one larger than the pool or not increasing") {
    Plan p = parse_plan(plan_with("[scaling]\nhosts = [1, 2, 4]\n"), "pool.toml");
    CHECK(p.pool.scaling_hosts == std::vector<uint32_t>{1, 2, 4});
    CHECK(p.pool.series(8) == std::vector<uint32_t>{1, 2, 4});
    CHECK(parse_plan(plan_with(""), "pool.toml").pool.series(3) == std::vector<uint32_t>{3});
    CHECK(pool_plan_problem(p, 4).empty());
    std::string why = pool_plan_problem(p, 2);
    CHECK(why.find("pool.toml:9:") == 0);
    CHECK(why.find("wants a pool of 4 hosts, but this run has 2 rank(s)") != std::string::npos);
    // Depth-first must hold every step on every pool size of the series.
    p = parse_plan(plan_with("[pool]\nplacement = \"depth-first\"\nmax_sessions_per_host = 4\n[scaling]\nhosts = [1, 2]\n"),
                   "pool.toml");
    why = pool_plan_problem(p, 2);
    CHECK(why.find("on 1 host(s) holds 4 sessions, but step 3 wants 6") != std::string::npos);
    std::string e = plan_error(plan_with("[scaling]\nhosts = [2, 1]\n"));
    CHECK(e.find("pool.toml:9:") != std::string::npos);
    CHECK(e.find("strictly increasing") != std::string::npos);
    e = plan_error(plan_with("[scaling]\nhosts = [0]\n"));
    CHECK(e.find("host counts from 1") != std::string::npos);
    e = plan_error(plan_with("[scaling]\n"));
    CHECK(e.find("missing key 'scaling.hosts'") != std::string::npos);
}
