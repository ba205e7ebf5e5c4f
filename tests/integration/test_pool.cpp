// A pool run under a real mpirun with 2 ranks on this machine, each rank its own host by name
// (--host-name 'h{rank}'): windows open together within the measured skew, the merged database
// is the union of the host databases, placement, a rank stopped mid-run (the survivor ends
// 'degraded' within its deadline, every database consistent), and what stops a pool at start.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "store/merge.h"
#include "store/sqlite_handle.h"
#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("pool: two ranks step together, windows open within the measured skew, merged = union of hosts") {
    TempDir t;
    write_file(t.file("pool.toml"), pool_plan("2", ""));
    auto r = run_process(pool_argv(2, t.file("pool.toml"), t.file("pool.db")), 120, mpi_env);
    INFO(r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("pool run finished on 2 host(s)") != std::string::npos);
    const std::string merged = t.file("pool.db"), h0 = t.file("pool.h0.db"), h1 = t.file("pool.h1.db");
    store::StoreReader m(merged);
    CHECK(m.run().status == store::RunStatus::finished);
    CHECK_FALSE(m.run().pool_id.empty());
    auto hosts = m.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[0].hostname == "h0");
    CHECK(hosts[1].hostname == "h1");
    CHECK(hosts[1].rank == 1);
    REQUIRE(hosts[1].clock_uncertainty_ns);
    // Breadth-first: one session on each host.
    CHECK(sessions_per_host(merged) == std::map<std::string, int64_t>{{"h0", 1}, {"h1", 1}});
    // The merged database holds every host's rows (counts and sums per host).
    for (const auto& [host, file] : {std::pair{std::string("h0"), h0}, std::pair{std::string("h1"), h1}}) {
        const std::string& host_name = host;  // doctest's CAPTURE is a lambda: clang 14 cannot capture a binding
        CAPTURE(host_name);
        const std::string in_host = " WHERE session_id IN (SELECT id FROM sessions WHERE host = '" + host + "')";
        CHECK(scalar(merged, "SELECT count(*) FROM frames" + in_host) == scalar(file, "SELECT count(*) FROM frames"));
        CHECK(scalar(merged, "SELECT sum(cpu_ns) FROM frames" + in_host) == scalar(file, "SELECT sum(cpu_ns) FROM frames"));
        CHECK(scalar(merged, "SELECT count(*) FROM samples WHERE host = '" + host + "'") ==
              scalar(file, "SELECT count(*) FROM samples"));
        CHECK(scalar(merged, "SELECT count(*) FROM verdicts WHERE host = '" + host + "'") ==
              scalar(file, "SELECT count(*) FROM verdicts"));
    }
    CHECK(m.verdicts().size() == 2);  // the pool's: the window and the step
    CHECK(m.steps().at(0).target_sessions == 2);  // the pool's total
    // Both hosts opened and closed the window at the same instant, within the offset's bound
    // (plus a sanity margin for wake-up on a loaded machine).
    store::StoreReader a(h0), b(h1);
    const int64_t off = hosts[1].clock_offset_ns, unc = *hosts[1].clock_uncertainty_ns;
    const int64_t open0 = *a.steps().at(0).window_start_ns, open1 = *b.steps().at(0).window_start_ns + off;
    const int64_t close0 = *a.steps().at(0).window_end_ns, close1 = *b.steps().at(0).window_end_ns + off;
    CAPTURE(open1 - open0);
    CAPTURE(unc);
    MESSAGE("window open skew " << (open1 - open0) << " ns, close skew " << (close1 - close0) << " ns, offset " << off << " +- " << unc << " ns");
    CHECK(std::llabs(open1 - open0) <= unc + 250'000'000);
    CHECK(std::llabs(close1 - close0) <= unc + 250'000'000);
}

TEST_CASE("pool: depth-first fills a host first, per-host runs the count on every host") {
    TempDir t;
    write_file(t.file("depth.toml"), pool_plan("3", "placement = \"depth-first\"\nmax_sessions_per_host = 2\n", "1s"));
    auto r = run_process(pool_argv(2, t.file("depth.toml"), t.file("depth.db")), 120, mpi_env);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(sessions_per_host(t.file("depth.db")) == std::map<std::string, int64_t>{{"h0", 2}, {"h1", 1}});

    write_file(t.file("per.toml"), pool_plan("1", "placement = \"per-host\"\n", "1s"));
    r = run_process(pool_argv(2, t.file("per.toml"), t.file("per.db")), 120, mpi_env);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(sessions_per_host(t.file("per.db")) == std::map<std::string, int64_t>{{"h0", 1}, {"h1", 1}});
    CHECK(store::StoreReader(t.file("per.db")).steps().at(0).target_sessions == 2);  // 1 per host, 2 in the pool
}

TEST_CASE("pool: two ranks with one host name stop the pool before it starts, on every rank alike") {
    TempDir t;
    write_file(t.file("pool.toml"), pool_plan("2", ""));
    auto r = run_process(pool_argv(2, t.file("pool.toml"), t.file("same.db"), "same"), 60, mpi_env);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("ranks 0 and 1 are both host 'same'") != std::string::npos);
    CHECK(r.err.find("--host-name 'node{rank}'") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(t.file("same.same.db")));  // nothing started

    // Plans a pool cannot run (exit 2 with file:line): test_pool_scaling.cpp.
}

TEST_CASE("pool: a rank stopped mid-run is lost, the survivor ends degraded, every database consistent") {
    TempDir t;
    write_file(t.file("pool.toml"), pool_plan("2, 4", "", "3s"));
    BackgroundProcess mpirun(pool_argv(2, t.file("pool.toml"), t.file("pool.db")), mpi_env);
    // Rank 1's process: the seatmark whose environment says rank 1.
    int rank1 = -1;
    REQUIRE(wait_until(60, [&] { return (rank1 = rank_pid(t.file("pool.toml"), 1)) > 0; }));
    // Once its first window is open, stop it: rank 0 waits at the window's close, then gives up.
    REQUIRE(wait_until(90, [&] {
        try {
            return scalar(t.file("pool.h1.db"), "SELECT count(*) FROM steps WHERE window_start_ns IS NOT NULL") > 0 ||
                   scalar(t.file("pool.h1.db"), "SELECT count(*) FROM frames") > 20;
        } catch (...) {
            return false;
        }
    }));
    signal_process(rank1, SIGSTOP);
    // The steps h1 had finished when it stopped (its file is frozen now). Under load (a sanitizer
    // build, a busy runner) step 0 can end between the poll and the stop; the rank is then lost in
    // the step it was in, not in step 0.
    const int64_t finished = scalar(t.file("pool.h1.db"), "SELECT count(*) FROM steps WHERE ended_ns IS NOT NULL");
    auto r = mpirun.wait(90);
    signal_process(rank1, SIGKILL);
    INFO(r.err);
    CHECK_FALSE(r.timed_out);
    CHECK(r.err.find("lost") != std::string::npos);
    // Rank 0 merged without h1's file and says how to merge it too, h1's file named.
    CHECK(r.err.find("to make the pool's database from every host's file") != std::string::npos);
    CHECK(r.err.find("merge --force " + std::filesystem::absolute(t.file("pool.db")).lexically_normal().string()) != std::string::npos);
    CHECK(r.err.find(std::filesystem::absolute(t.file("pool.h1.db")).lexically_normal().string()) != std::string::npos);
    store::StoreReader m(t.file("pool.db"));
    CHECK(m.run().status == store::RunStatus::degraded);
    auto hosts = m.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[1].hostname == "h1");
    CHECK(hosts[1].lost);
    REQUIRE(hosts[1].lost_step);
    CAPTURE(finished);
    // Lost in the step it had not finished, or in the next when it stopped after sending that step's
    // verdict but before its writer committed the step's end (run_steps.cpp queues end_step, then answers).
    CHECK(*hosts[1].lost_step >= finished);
    CHECK(*hosts[1].lost_step <= finished + 1);
    CHECK(*hosts[1].lost_step <= 1);  // a 2-step plan: lost within it
    // The lost host's own database is consistent on its disk, and a merge of the survivors' files says who was lost.
    store::StoreReader h1(t.file("pool.h1.db"));
    CHECK(h1.integrity_ok());
    auto merged = store::merge_databases(t.file("again.db"), {t.file("pool.h0.db"), t.file("pool.h1.db")});
    CHECK(merged.status == store::RunStatus::degraded);
    CHECK(merged.hosts.at(1).lost);
}
