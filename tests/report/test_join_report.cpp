// A joined run's report (report/host_roster.h) on the crafted golden run (golden.h) made a
// joined one: every session ran on desk-b, which had no agent, while the controller sampled its
// own CPU (10 % per session of the step). Known by construction: the controller's figures must
// not stand for desk-b anywhere, and desk-b is listed with why it has none.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "report/analysis.h"
#include "report/capacity_model.h"
#include "store/sqlite_handle.h"
#include "tests/report/golden.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::report;
namespace golden = seatmark::test::golden;

TEST_CASE("joined run report: the controller's samples never stand for the joined host, listed with its agent status") {
    test::TempDir dir;
    const std::string db = dir.file("join.db");
    golden::write(db, golden::crafted());
    {
        store::Db d(db, SQLITE_OPEN_READWRITE);
        // desk-b joined 2 s into the run without an agent (as the orchestrator records it).
        const std::string sql =
            "UPDATE sessions SET host = 'desk-b';"
            "INSERT INTO hosts (run_id, hostname, cpu_model, cpu_count, mem_total_bytes, os, kernel, gpu, driver,"
            " vulkan_device, role, agent) SELECT id, 'desk-b', '', 0, 0, '', '', '', '', '', 'joined',"
            " 'none: no seatmark agent has joined for this host' FROM runs;"
            "INSERT INTO events (t_ns, host, kind, detail) VALUES (" + std::to_string(golden::t0_ns + 2'000'000'000) +
            ", 'desk-b', 'host-figures-unavailable', 'host desk-b: no seatmark agent has joined for it')";
        d.exec(sql.c_str(), "making the golden run a joined one");
    }
    const RunAnalysis a = analyze(db);
    REQUIRE(a.steps.size() == 8);
    const std::string why = "no agent on desk-b since 2.0 s into the run";
    for (const auto& s : a.steps) {
        CAPTURE(s.idx);
        // The controller's 10 % x target is not desk-b's CPU.
        CHECK(s.host_cpu_mean_pct == -1);
        CHECK(std::none_of(s.attribution.resources.begin(), s.attribution.resources.end(),
                           [](const core::ResourceUse& r) { return r.name == "host CPU"; }));
        const auto cpu = std::find_if(s.attribution.not_judged.begin(), s.attribution.not_judged.end(),
                                      [](const core::NotJudged& n) { return n.name == "host CPU"; });
        REQUIRE(cpu != s.attribution.not_judged.end());
        CHECK(cpu->why == why);
        // The per-host table: desk-b with its sessions, not judged, and not the controller.
        REQUIRE(s.host_use.size() == 1);
        CHECK(s.host_use[0].host == "desk-b");
        CHECK(s.host_use[0].sessions == s.verdict.sessions.size());
        CHECK(s.host_use[0].cpu_mean_pct == -1);
        CHECK(s.host_use[0].note == "not judged: " + why);
    }
    // Every host that took part, the controller first.
    REQUIRE(a.roster.size() == 2);
    CHECK(a.roster[0].host == "golden-host");
    CHECK(a.roster[0].sessions == 0);
    CHECK(a.roster[0].sampled);
    CHECK(a.roster[0].figures == "the controller: ran no sessions; its own samples stand for no joined host");
    CHECK(a.roster[1].host == "desk-b");
    CHECK(a.roster[1].role == "joined");
    CHECK(a.roster[1].sessions == a.sessions.size());
    CHECK(a.roster[1].agent == "none: no seatmark agent has joined for this host");
    CHECK_FALSE(a.roster[1].sampled);
    CHECK(a.roster[1].figures == "not judged: " + why);
    // Sizing is not done for the controller's vCPUs: desk-b's count is unknown.
    CHECK(model_capacity(a).vcpus == 0);
}

TEST_CASE("report of a run that joined no host: no host roster, the run's own samples as before") {
    test::TempDir dir;
    const std::string db = dir.file("golden.db");
    golden::write(db, golden::crafted());
    const RunAnalysis a = analyze(db);
    CHECK(a.roster.empty());
    REQUIRE(a.steps.size() == 8);
    CHECK(a.steps[3].host_cpu_mean_pct == doctest::Approx(40));  // 10 % x 4 sessions
    CHECK(a.steps[3].host_use.empty());
}
