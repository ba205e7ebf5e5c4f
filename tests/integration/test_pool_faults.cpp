// Faults of a pool run under a real mpirun: an asset present on rank 0's host only (each rank
// its own working directory, as each host has its own asset cache) starts nothing and names the
// host and the file; a rank killed outright (SIGKILL) mid-run: Open MPI ends the whole job, the
// survivor records why on the launcher's SIGTERM with its database consistent, and a merge of the
// surviving database reports the lost host.
#include <doctest/doctest.h>

#include <signal.h>

#include <filesystem>
#include <string>

#include "store/merge.h"
#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("pool: an asset missing on one host starts nothing and names the host and the file") {
    TempDir t;
    const std::string plan = t.file("pool.toml");
    write_file(plan, pool_plan("2", "", "1s", "assets = [\"cache/model.bin\"]\n"));
    std::filesystem::create_directories(t.file("h0/cache"));
    std::filesystem::create_directories(t.file("h1"));
    write_file(t.file("h0/cache/model.bin"), "the model");  // host h0's cache has it, h1's does not
    // One app context per rank (MPMD), each in its own host's directory.
    std::vector<std::string> argv = mpirun_argv(1);
    auto rank_args = [&](const std::string& dir) {
        return std::vector<std::string>{"-wdir", dir, SEATMARK_BIN, "run", plan, "--db", t.file("pool.db"),
                                        "--host-name", "h{rank}", "-q", "--listen", "off"};
    };
    for (const auto& a : rank_args(t.file("h0"))) argv.push_back(a);
    argv.insert(argv.end(), {":", "-np", "1"});
    for (const auto& a : rank_args(t.file("h1"))) argv.push_back(a);
    auto r = run_process(argv, 60, mpi_env);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("host h1 (rank 1)") != std::string::npos);
    CHECK(r.err.find("asset cache/model.bin is missing on this host") != std::string::npos);
    CHECK(r.err.find("nothing was started on any host") != std::string::npos);
    CHECK(r.err.find("host h0 (rank 0)") == std::string::npos);  // h0 had it
    CHECK_FALSE(std::filesystem::exists(t.file("pool.h0.db")));
    CHECK_FALSE(std::filesystem::exists(t.file("pool.h1.db")));
}

TEST_CASE("pool: a rank killed outright ends the job, the survivor records why, a merge of it reports the lost host") {
    TempDir t;
    const std::string plan = t.file("pool.toml");
    write_file(plan, pool_plan("2, 4", "", "3s"));
    BackgroundProcess mpirun(pool_argv(2, plan, t.file("pool.db")), mpi_env);
    int rank1 = -1;
    REQUIRE(wait_until(60, [&] { return (rank1 = rank_pid(plan, 1)) > 0; }));
    REQUIRE(wait_until(90, [&] {
        try {
            return scalar(t.file("pool.h1.db"), "SELECT count(*) FROM frames") > 20;
        } catch (...) {
            return false;
        }
    }));
    signal_process(rank1, SIGKILL);
    auto r = mpirun.wait(60);
    INFO(r.err);
    CHECK_FALSE(r.timed_out);
    CHECK(r.exit_code != 0);
    // The survivor: stopped by the launcher, the cause recorded, its file whole.
    const std::string h0 = t.file("pool.h0.db");
    REQUIRE(std::filesystem::exists(h0));
    store::StoreReader a(h0);
    CHECK(a.integrity_ok());
    CHECK(a.effective_status() == store::RunStatus::aborted);
    bool cause = false;
    for (const auto& e : a.events())
        cause = cause || (e.kind == "run-abort" && e.detail.find("from the launcher") != std::string::npos);
    CHECK(cause);
    CHECK(store::StoreReader(t.file("pool.h1.db")).integrity_ok());  // killed: consistent, did not finish
    CHECK_FALSE(std::filesystem::exists(t.file("pool.db")));         // nobody merged
    // seatmark merge of what survived: h1 is listed by h0 but has no database -> lost.
    auto m = run_process({SEATMARK_BIN, "merge", t.file("merged.db"), h0}, 60);
    INFO(m.err);
    CHECK(m.exit_code == 0);
    CHECK(m.err.find("host h1 was lost") != std::string::npos);
    store::StoreReader merged(t.file("merged.db"));
    CHECK(merged.run().status == store::RunStatus::degraded);
    auto hosts = merged.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[1].hostname == "h1");
    CHECK(hosts[1].lost);
    CHECK(hosts[1].lost_step.has_value());
}
