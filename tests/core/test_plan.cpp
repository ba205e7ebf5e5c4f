#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "common/errors.h"
#include "core/plan.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::core;

TEST_CASE("the example plan's commented-out keys are true: uncommented they parse as documented") {
    // Every line "# key = value" or "# [table]" made live, and the step list dropped for the search.
    std::ifstream in(std::string(SEATMARK_SOURCE_DIR) + "/workloads/plans/example.toml");
    const std::regex live(R"(^# ((\[[a-z]+\])|([a-z_]+ = .*))$)");
    std::string text, line;
    int uncommented = 0;
    while (std::getline(in, line)) {
        std::smatch m;
        if (line.rfind("list = ", 0) == 0) continue;
        if (std::regex_match(line, m, live)) {
            line = m[1];
            ++uncommented;
        }
        text += line + "\n";
    }
    CHECK(uncommented == 12);
    Plan p = parse_plan(text, "example.toml (uncommented)", std::string(SEATMARK_SOURCE_DIR) + "/workloads/plans");
    CHECK(p.search.adaptive);
    CHECK(p.search.min == 1);
    CHECK(p.search.max == 64);
    CHECK(p.search.resolution == 2);
    CHECK(p.search.max_repeats == 6);
    REQUIRE(p.cost.host_per_hour);
    CHECK(*p.cost.host_per_hour == doctest::Approx(3.20));
    CHECK(p.cost.currency == "EUR");
    CHECK(p.pool.placement == Placement::breadth_first);
    CHECK(p.pool.max_sessions_per_host == 24);
    CHECK(p.pool.sync_timeout_s == 30);
    CHECK(p.sessions == SessionsMode::spawn);
    CHECK(p.join_timeout_s == 300);
}

TEST_CASE("the example plan and the demo plan parse") {
    Plan p = load_plan(std::string(SEATMARK_SOURCE_DIR) + "/workloads/plans/example.toml");
    CHECK(p.name == "designer-density");
    CHECK(p.steps == std::vector<uint32_t>{1, 2, 4, 8, 12, 16, 24, 32});
    CHECK(p.repeats == 2);
    CHECK(p.window_s == 60);
    CHECK(p.settle_s == 15);
    CHECK_FALSE(p.allow_software);
    CHECK(p.stop == StopRule::first_failure);
    CHECK(p.mix.size() == 2);
    CHECK(p.sla_for("viewer-light").p95_interval_ms == 50);
    CHECK(p.sla_for("viewer-light").latency_p95_ms == 100);  // inherited from [sla]
    CHECK(p.sla_for("designer-medium").p95_interval_ms == doctest::Approx(33.3));

    Plan d = parse_plan(demo_plan_text(), "demo");
    CHECK(d.steps == std::vector<uint32_t>{1, 2, 4, 6, 8});
    CHECK(d.stop == StopRule::max);
    CHECK(d.mix.at(0).profile == "ci-tiny");
    CHECK(d.allow_software);  // the demo measures whatever renders here: it says so

    // The pool demo: per-host steps, so the 2-host ramp runs twice the 1-host one's sessions.
    for (bool quick : {true, false}) {
        CAPTURE(quick);
        Plan pd = parse_plan(demo_pool_plan_text(2, quick), "pool demo");
        CHECK(pd.allow_software);
        CHECK(pd.pool.placement == Placement::per_host);
        CHECK(pd.pool.scaling_hosts == std::vector<uint32_t>{1, 2});
        CHECK(pd.steps == (quick ? std::vector<uint32_t>{1, 2} : std::vector<uint32_t>{1, 2, 3}));
        CHECK(pool_total(pd.steps.back(), 2, pd.pool.placement) == 2 * pool_total(pd.steps.back(), 1, pd.pool.placement));
    }
}

TEST_CASE("allow_software is false unless the plan sets it") {
    Plan p = parse_plan("name = \"x\"\n[steps]\nlist = [1]\n[[mix]]\nprofile = \"ci-tiny\"\n", "x.toml");
    CHECK_FALSE(p.allow_software);
    CHECK_FALSE(p.allow_software_given);
    p = parse_plan("name = \"x\"\n[run]\nallow_software = true\n[steps]\nlist = [1]\n[[mix]]\nprofile = \"ci-tiny\"\n", "x.toml");
    CHECK(p.allow_software);
    CHECK(p.allow_software_given);
    CHECK_FALSE(Plan{}.allow_software);
}

TEST_CASE("the session mix follows its weights in every prefix") {
    Plan p = load_plan(std::string(SEATMARK_SOURCE_DIR) + "/workloads/plans/example.toml");
    std::map<std::string, int> count;
    for (uint32_t i = 0; i < 8; ++i) ++count[p.profile_for(i)];
    CHECK(count["designer-medium"] == 6);
    CHECK(count["viewer-light"] == 2);
    CHECK(p.profile_for(0) == "designer-medium");
    // Deterministic.
    CHECK(p.profile_for(5) == p.profile_for(5));

    // Every prefix of every mix, not only the first 8: each profile's count stays within one
    // session of its weighted share (smooth weighted round robin), here over 3 weights.
    Plan q = parse_plan("name = \"x\"\n[steps]\nlist = [1]\n[[mix]]\nprofile = \"ci-tiny\"\nweight = 5\n"
                        "[[mix]]\nprofile = \"viewer-light\"\nweight = 3\n[[mix]]\nprofile = \"designer-medium\"\n",
                        "mix.toml");
    for (const Plan* plan : {&p, &q}) {
        double total = 0;
        for (const auto& m : plan->mix) total += m.weight;
        std::map<std::string, int> n;
        for (uint32_t i = 0; i < 512; ++i) {
            ++n[plan->profile_for(i)];
            for (const auto& m : plan->mix) {
                double share = double(i + 1) * m.weight / total;
                CAPTURE(i);
                CAPTURE(m.profile);
                CHECK(std::abs(n[m.profile] - share) < 1.0);
            }
        }
    }
}

TEST_CASE("a plan's db is relative to the plan's folder, like its profiles, an absolute one is kept") {
    test::TempDir dir;
    std::filesystem::create_directories(dir.file("plans"));
    test::write_file(dir.file("plans/p.toml"),
                     "name = \"x\"\n[run]\ndb = \"runs/a.db\"\n[steps]\nlist = [1]\n[[mix]]\nprofile = \"ci-tiny\"\n");
    CHECK(load_plan(dir.file("plans/p.toml")).db_path == dir.file("plans/runs/a.db"));
    test::write_file(dir.file("plans/q.toml"),
                     "name = \"x\"\n[run]\ndb = \"/abs/b.db\"\n[steps]\nlist = [1]\n[[mix]]\nprofile = \"ci-tiny\"\n");
    CHECK(load_plan(dir.file("plans/q.toml")).db_path == "/abs/b.db");
    test::write_file(dir.file("plans/e.toml"),
                     "name = \"x\"\n[run]\ndb = \"\"\n[steps]\nlist = [1]\n[[mix]]\nprofile = \"ci-tiny\"\n");
    CHECK_THROWS_AS(load_plan(dir.file("plans/e.toml")), InputError);
    CHECK_THROWS_WITH_AS(load_plan(dir.path), (dir.path + ": is a folder; give the plan file, e.g. " + dir.path +
                                               "/example.toml").c_str(), InputError);
}

TEST_CASE("steps from start/increment/max") {
    Plan p = parse_plan("name = \"x\"\n[steps]\nstart = 2\nincrement = 3\nmax = 11\n[[mix]]\nprofile = \"ci-tiny\"\n", "p.toml");
    CHECK(p.steps == std::vector<uint32_t>{2, 5, 8, 11});
}

TEST_CASE("malformed plans are rejected with file:line and what was expected") {
    const std::string good_tail = "[[mix]]\nprofile = \"ci-tiny\"\n";
    struct Case {
        std::string text, expect_where, expect_text;
    };
    std::vector<Case> cases = {
        {"name = \"x\"\n[steps]\nlist = [1, 2]\n" + good_tail + "[run]\nstop = \"never\"\n", "plan.toml:7", "first-failure"},
        {"name = \"x\"\n[steps]\nlist = [2, 1]\n" + good_tail, "plan.toml:3", "increasing"},
        {"name = \"x\"\n[steps]\nlist = [0]\n" + good_tail, "plan.toml:3", "from 1 to 4096"},
        // A float beyond int64 (fuzz_plan: toml++'s float -> int64 cast is unchecked, UBSan caught it).
        {"name = \"x\"\n[steps]\nlist = [411e111]\n" + good_tail, "plan.toml:3", "from 1 to 4096"},
        {"name = \"x\"\n[steps]\nlist = []\n" + good_tail, "plan.toml:3", "non-empty"},
        {"name = \"x\"\n[steps]\nlist = [1]\nwindow = \"-3s\"\n" + good_tail, "plan.toml:4", "window"},
        {"name = \"x\"\n[steps]\nlist = [1]\nwindoww = \"3s\"\n" + good_tail, "plan.toml:4", "unknown key"},
        {"name = \"x\"\n[steps]\nlist = [1]\n[[mix]]\nprofile = \"no-such-profile\"\n", "plan.toml:5", "no-such-profile"},
        {"name = \"x\"\n[steps]\nlist = [1]\n" + good_tail + "[sla]\np95_interval_ms = -1\n", "plan.toml:7", "p95_interval_ms"},
        {"name = \"x\"\n[steps]\nlist = [1]\n" + good_tail + "[sla.other]\nlow1_fps = 5\n", "plan.toml:6", "other"},
        {"name = \"x\"\n[steps]\nlist = [1]\n", "plan.toml", "mix"},
        {"name = \"x\"\n" + good_tail, "plan.toml", "steps"},
        {"name = \"x\"\n[steps\nlist = [1]\n", "plan.toml:2", "syntax"},
        {"[steps]\nlist = [1]\n" + good_tail, "plan.toml", "name"},
        {"name = \"x\"\n[steps]\nlist = [1]\nstart = 1\n" + good_tail, "plan.toml:3", "not both"},
        {"name = \"x\"\n[run]\nheartbeat_timeout = \"0s\"\n[steps]\nlist = [1]\n" + good_tail, "plan.toml:3",
         "heartbeat_timeout"},
        {"name = \"x\"\n[run]\nassets = [\"a\", 3]\n[steps]\nlist = [1]\n" + good_tail, "plan.toml:3", "run.assets[1]"},
        {"name = \"x\"\n[run]\nassets = [{ path = \"a\", xxh3 = \"12\" }]\n[steps]\nlist = [1]\n" + good_tail, "plan.toml:3",
         "16 hex digits"},
        {"name = \"x\"\n[run]\nassets = [{ path = \"a\", size = -1 }]\n[steps]\nlist = [1]\n" + good_tail, "plan.toml:3",
         "run.assets[0].size"},
        {"name = \"x\"\n[run]\nassets = [{ size = 4 }]\n[steps]\nlist = [1]\n" + good_tail, "plan.toml:3", "path"},
        {"name = \"x\"\n[run]\nassets = [{ path = \"a\", sha = \"x\" }]\n[steps]\nlist = [1]\n" + good_tail, "plan.toml:3",
         "unknown key"},
        {"name = \"x\"\n[run]\nassets = \"a\"\n[steps]\nlist = [1]\n" + good_tail, "plan.toml:3", "array"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        try {
            parse_plan(c.text, "plan.toml");
            FAIL("accepted a bad plan");
        } catch (const InputError& e) {
            std::string msg = e.what();
            INFO(msg);
            CHECK(msg.find(c.expect_where) == 0);
            CHECK(msg.find(c.expect_text) != std::string::npos);
        }
    }
}

TEST_CASE("run.assets takes paths and { path, size, xxh3 } tables") {
    Plan p = parse_plan("name = \"x\"\n[run]\nassets = [\"/a/b\", { path = \"/c\", size = 12, xxh3 = \"00ff00FF12345678\" }]\n"
                        "[steps]\nlist = [1]\n[[mix]]\nprofile = \"ci-tiny\"\n",
                        "p.toml");
    REQUIRE(p.assets.size() == 2);
    CHECK(p.assets[0].path == "/a/b");
    CHECK_FALSE(p.assets[0].size);
    CHECK_FALSE(p.assets[0].xxh3);
    CHECK(p.assets[1].path == "/c");
    CHECK(p.assets[1].size == 12u);
    CHECK(p.assets[1].xxh3 == 0x00ff00ff12345678ull);
    CHECK(p.assets[1].where.rfind("p.toml:3", 0) == 0);
}

TEST_CASE("a missing plan file names the path") {
    try {
        load_plan("/nonexistent/plan.toml");
        FAIL("no error");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).find("/nonexistent/plan.toml") != std::string::npos);
    }
}

TEST_CASE("the shipped pool and join example plans parse as their comments say") {
    Plan pool = load_plan(std::string(SEATMARK_SOURCE_DIR) + "/workloads/plans/pool.toml");
    CHECK(pool.name == "avd-pool-density");
    CHECK(pool.steps == std::vector<uint32_t>{4, 8, 16, 24, 32, 48, 64});
    CHECK_FALSE(pool.allow_software);
    CHECK(pool.pool.placement == Placement::breadth_first);
    CHECK(pool.pool.sync_timeout_s == 30);
    CHECK(pool.pool.scaling_hosts == std::vector<uint32_t>{1, 2, 4});
    CHECK(pool_plan_problem(pool, 4).empty());
    CHECK(pool_plan_problem(pool, 2).find("mpirun -np 4") != std::string::npos);  // the series wants 4 ranks
    CHECK(pool.sessions == SessionsMode::spawn);

    Plan join = load_plan(std::string(SEATMARK_SOURCE_DIR) + "/workloads/plans/join.toml");
    CHECK(join.name == "avd-logon-density");
    CHECK(join.sessions == SessionsMode::join);
    CHECK(join.join_timeout_s == 300);
    CHECK(join.steps == std::vector<uint32_t>{1, 5, 10, 15, 20, 25, 30});
    CHECK_FALSE(join.allow_software);
    CHECK(join.mix.size() == 1);
    CHECK(join.mix.at(0).profile == "designer-medium");
}
