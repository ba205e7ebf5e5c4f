// A pool rank killed outright (SIGKILL) in a known step of a real mpirun run, then the recovery
// the survivor prints: a ready-to-paste `seatmark merge` of every host's file. Known by
// construction: the plan's breadth-first steps of 2 and 4 pool sessions put 1 then 2 on each of
// the 2 hosts, rank 1 is killed once its step-2 window is open, so it is lost in step 2 (idx 1).
// Merged from the survivor's file alone: the lost host is lost from step 2, step 1 keeps its 2
// sessions, h1's step 1 is "no data" (never "pass 0"), no false "recorded" warning, no window
// skew from one host. The printed command, pasted (it names the killed rank's own file too): h1
// is lost where its file ends, its step 1 is judged, and the skew is over both hosts.
#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "report/analysis.h"
#include "report/words.h"
#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

bool any_warning(const report::RunAnalysis& a, const std::string& part) {
    const auto w = report::headline(a).warnings;
    return std::any_of(w.begin(), w.end(), [&](const std::string& x) { return x.find(part) != std::string::npos; });
}

// The command line the survivor printed after its marker line, "" if none.
std::string printed_merge(const std::string& err) {
    const std::string marker = "to make the pool's database from every host's file";
    const size_t at = err.find(marker);
    if (at == std::string::npos) return "";
    const size_t nl = err.find('\n', at);
    if (nl == std::string::npos) return "";
    const size_t end = err.find('\n', nl + 1);
    std::string line = err.substr(nl + 1, end == std::string::npos ? std::string::npos : end - nl - 1);
    return line.substr(std::min(line.find_first_not_of(' '), line.size()));
}

}  // namespace

TEST_CASE("pool lost: a rank killed in step 2, merged without and with its own file, and the printed merge command works") {
    TempDir t;
    const std::string plan = t.file("pool.toml");
    write_file(plan, pool_plan("2, 4", "", "3s"));
    BackgroundProcess mpirun(pool_argv(2, plan, t.file("pool.db")), mpi_env);
    int rank1 = -1;
    REQUIRE(wait_until(60, [&] { return (rank1 = rank_pid(plan, 1)) > 0; }));
    // Step 2's window open on h1 (windows open at one instant on every host): kill it there.
    REQUIRE(wait_until(120, [&] {
        try {
            return scalar(t.file("pool.h1.db"), "SELECT count(*) FROM steps WHERE idx = 1") > 0;  // the row comes at the window's opening
        } catch (...) {
            return false;
        }
    }));
    signal_process(rank1, SIGKILL);
    auto r = mpirun.wait(90);
    INFO(r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code != 0);
    const std::string h0 = t.file("pool.h0.db"), h1 = t.file("pool.h1.db");
    REQUIRE(std::filesystem::exists(h0));
    REQUIRE(std::filesystem::exists(h1));
    // The killed rank's file ends in step 2 with no verdict of it (the window lasts 3 s).
    REQUIRE(scalar(h1, "SELECT count(*) FROM verdicts WHERE step_idx = 1") == 0);

    // The survivor's recovery line names every host's file.
    const std::string cmd = printed_merge(r.err);
    CAPTURE(cmd);
    REQUIRE_FALSE(cmd.empty());
    CHECK(cmd.find(" merge ") != std::string::npos);
    CHECK(cmd.find(std::filesystem::absolute(h0).lexically_normal().string()) != std::string::npos);
    CHECK(cmd.find(std::filesystem::absolute(h1).lexically_normal().string()) != std::string::npos);

    {  // merged from the survivor alone
        const std::string out = t.file("survivors.db");
        auto m = run_process({SEATMARK_BIN, "merge", out, h0}, 60);
        INFO(m.err);
        REQUIRE(m.exit_code == 0);
        store::StoreReader rd(out);
        const auto hosts = rd.hosts();
        REQUIRE(hosts.size() == 2);
        CHECK(hosts[1].lost);
        CHECK(hosts[1].lost_step == 1);
        const auto steps = rd.steps();
        REQUIRE_FALSE(steps.empty());
        CHECK(steps[0].target_sessions == 2);  // 1 + 1, h1's share counted without its file
        const report::RunAnalysis a = report::analyze(out);
        REQUIRE(a.pool.hosts.size() == 2);
        const auto& x = a.pool.hosts[1];
        CHECK(a.steps[0].target == 2);
        CHECK(x.steps[0].no_data);
        CHECK_FALSE(x.steps[0].judged);
        CHECK(x.steps[0].target == 1);
        REQUIRE(x.steps.size() >= 2);
        CHECK(x.steps[1].lost_here);
        CHECK_FALSE(any_warning(a, "the orchestrator recorded"));
        CHECK_FALSE(any_warning(a, "its figures differ"));
        CHECK_FALSE(a.pool.window_skew_ns);  // one host's own windows: no skew to state
        CHECK(m.out.find("pass 0") == std::string::npos);
    }
    {  // the printed command, pasted: with the killed rank's own file
        auto m = run_process({"/bin/sh", "-c", cmd}, 60);
        INFO(m.err);
        REQUIRE(m.exit_code == 0);
        const std::string out = t.file("pool.db");
        store::StoreReader rd(out);
        CHECK(rd.run().status == store::RunStatus::degraded);
        const auto hosts = rd.hosts();
        REQUIRE(hosts.size() == 2);
        CHECK_FALSE(hosts[0].lost);
        CHECK(hosts[1].lost);
        CHECK(hosts[1].lost_step == 1);
        REQUIRE(hosts[1].lost_detail);
        CHECK(hosts[1].lost_detail->starts_with("crashed: its database ("));
        CHECK(rd.steps().at(0).target_sessions == 2);
        const report::RunAnalysis a = report::analyze(out);
        const auto& x = a.pool.hosts.at(1);
        CHECK(x.steps.at(0).judged);
        CHECK(x.steps[0].target == 1);
        CHECK(x.steps.at(1).lost_here);
        CHECK(a.steps[0].target == 2);
        CHECK_FALSE(any_warning(a, "the orchestrator recorded"));
        CHECK_FALSE(any_warning(a, "its figures differ"));
        CHECK(a.pool.window_skew_hosts == 2);
        CHECK(a.pool.window_skew_ns.has_value());
    }
}
