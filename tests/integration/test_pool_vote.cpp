// The pool's vote between steps under a real mpirun, with synthetic sessions (no Vulkan: quick):
// one host failing on purpose (MPMD: its own --host-name and --session-args) fails the pool's
// step in the live API, the event stream, the merged database and the report, each naming that
// host; and a signal while a rank waits in the vote ends every rank cleanly.
#include <doctest/doctest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "store/store_reader.h"
#include "tests/orchestrator/http_test_client.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

// Synthetic sessions and a loose SLA, so a host at 60 FPS passes on a busy machine and one at
// 5 FPS (200 ms a frame) fails its p95 bound.
std::string vote_plan(const std::string& heartbeat) {
    return "name = \"pool-vote\"\n[run]\nheartbeat_timeout = \"" + heartbeat +
           "\"\nstop = \"max\"\n[steps]\nlist = [2, 4]\nsettle = \"1s\"\nwindow = \"2s\"\n[[mix]]\nprofile = "
           "\"ci-tiny\"\n[pool]\nsync_timeout = \"3s\"\n[sla]\np95_interval_ms = 100\nlow1_fps = 2\nstutter_pct = 100\n";
}

// One app context per rank (Open MPI's MPMD form), each with its own host name and session args.
std::vector<std::string> mpmd_argv(const std::string& plan, const std::string& db, const std::string& listen,
                                   const std::string& args0, const std::string& args1) {
    std::vector<std::string> argv = mpirun_argv(1);
    auto rank = [&](const std::string& host, const std::string& args) {
        argv.insert(argv.end(), {SEATMARK_BIN, "run", plan, "--db", db, "--host-name", host, "-q", "--listen", listen,
                                 "--session-args", args});
    };
    rank("h0", args0);
    argv.insert(argv.end(), {":", "-np", "1"});
    rank("h1", args1);
    return argv;
}

std::string stderr_now(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/fd/2");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

int64_t maybe(const std::string& db, const std::string& sql) {
    try {
        return std::filesystem::exists(db) ? scalar(db, sql) : -1;
    } catch (...) {
        return -1;  // not created yet, or its schema not in yet
    }
}

}  // namespace

TEST_CASE("pool: one host failing the step fails the pool's verdict everywhere, naming that host") {
    TempDir t;
    const std::string plan = t.file("vote.toml"), db = t.file("vote.db");
    write_file(plan, vote_plan("5s"));
    BackgroundProcess mpirun(
        mpmd_argv(plan, db, "127.0.0.1:0", "--synthetic-fps 60", "--synthetic-fps 5"), mpi_env);
    uint16_t port = 0;
    REQUIRE(wait_until(60, [&] { return (port = port_in(stderr_now(mpirun.pid()))) != 0; }));
    std::string stream;
    std::thread reader([&] { stream = http_exchange(port, "GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n", 120); });
    // The live API's step 1 once the pool voted (rank 0's own verdict, a pass, shows until then).
    nlohmann::json step;
    wait_until(60, [&] {
        auto v = http_get(port, "/api/v1/state");
        if (v.status != 200) return false;
        const auto steps = nlohmann::json::parse(v.body)["verdict"]["steps"];
        if (steps.empty()) return false;
        step = steps[0];
        return !step["pass"].get<bool>();
    });
    auto r = mpirun.wait(90);
    reader.join();
    INFO(r.err);
    REQUIRE(r.exit_code == 0);  // the run finished; its verdict is not its exit code
    INFO(step.dump());
    CHECK(step["sessions"] == 2);
    CHECK_FALSE(step["pass"].get<bool>());
    CHECK(step["reason"].get<std::string>().rfind("h1: ", 0) == 0);
    CHECK(step["reason"].get<std::string>().find("p95") != std::string::npos);

    // The event stream: each step's verdict is the pool's, failed by h1.
    INFO(stream);
    const auto events = sse_data(stream, "step-verdict");
    REQUIRE(events.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        CAPTURE(i);
        const auto e = nlohmann::json::parse(events[i])["data"];
        CHECK(e["sessions"] == 2 * (i + 1));
        CHECK_FALSE(e["pass"].get<bool>());
        CHECK(e["reason"].get<std::string>().rfind("h1: ", 0) == 0);
    }
    CHECK(nlohmann::json::parse(events[0])["data"]["reason"] == step["reason"]);

    // The merged database: h0 passed, h1 failed, so the pool failed, with h1's reason.
    auto pass = [&](const std::string& host, int i) {
        return scalar(db, "SELECT pass FROM verdicts WHERE repeat = -1 AND step_idx = " + std::to_string(i) +
                              " AND host = '" + host + "'");
    };
    for (int i = 0; i < 2; ++i) {
        CAPTURE(i);
        CHECK(pass("h0", i) == 1);
        CHECK(pass("h1", i) == 0);
        CHECK(pass("", i) == 0);
    }
    store::Db d(db, SQLITE_OPEN_READONLY);
    store::Stmt s(d, "SELECT reason FROM verdict_reasons WHERE host = '' AND step_idx = 0 AND repeat = -1 ORDER BY ord");
    REQUIRE(s.step());
    CHECK(s.col_text(0).rfind("h1: ", 0) == 0);

    // The report says which host failed.
    auto rep = run_process({SEATMARK_BIN, "report", db, "--out", t.file("report")}, 120);
    INFO(rep.err);
    REQUIRE(rep.exit_code == 0);
    const std::string md = read_file(t.file("report/summary.md"));
    INFO(md);
    CHECK(md.find("Failed first: h1 failed first") != std::string::npos);
}

TEST_CASE("pool: a signal while a rank waits in the vote between steps ends every rank cleanly") {
    TempDir t;
    const std::string plan = t.file("vote.toml"), db = t.file("vote.db");
    const std::string h0 = t.file("vote.h0.db"), h1 = t.file("vote.h1.db");
    // h1's session is stopped (SIGSTOP) once h1's first window opened: h1 then waits for its
    // telemetry until the heartbeat timeout (10 s) before it judges and votes, while h0 judged at
    // the window's close and waits in the vote.
    write_file(plan, vote_plan("10s"));
    // The launcher's own ending (SIGCONT, SIGTERM and SIGKILL, odls_base_sigkill_timeout = 1 s
    // apart) would race the ranks on a busy machine: the ranks are signalled here as the launcher
    // signals them, and it waits longer before its own signals once a rank has exited.
    std::vector<std::string> env = mpi_env;
    env.push_back("OMPI_MCA_odls_base_sigkill_timeout=5");
    BackgroundProcess mpirun(mpmd_argv(plan, db, "off", "--synthetic-fps 60", "--synthetic-fps 60"), env);
    REQUIRE(wait_until(60, [&] { return maybe(h1, "SELECT count(*) FROM steps WHERE idx = 0") == 1; }));
    const int64_t session = maybe(h1, "SELECT pid FROM sessions ORDER BY id LIMIT 1");
    REQUIRE(session > 0);
    REQUIRE(signal_process(session, SIGSTOP) == 0);
    const std::string pooled = "SELECT count(*) FROM verdicts WHERE step_idx = 0 AND repeat = -1";
    REQUIRE(wait_until(30, [&] { return maybe(h0, pooled) == 1; }));  // h0 judged: it is in the vote
    CHECK(maybe(h1, pooled) == 0);                                       // h1 has not voted
    const int rank0 = rank_pid(plan, 0), rank1 = rank_pid(plan, 1);
    REQUIRE(rank0 > 0);
    REQUIRE(rank1 > 0);
    signal_process(rank0, SIGINT);  // Ctrl-C on the rank in the vote
    signal_process(rank1, SIGTERM);
    auto r = mpirun.wait(60);
    INFO(r.err);
    CHECK_FALSE(r.timed_out);
    CHECK(r.exit_code != 0);
    // Every rank: its sessions stopped, the run aborted with the signal as its cause, its file whole.
    for (const std::string& f : {h0, h1}) {
        CAPTURE(f);
        store::StoreReader a(f);
        CHECK(a.integrity_ok());
        CHECK(a.run().status == store::RunStatus::aborted);
        CHECK(a.effective_status() == store::RunStatus::aborted);
        bool cause = false;
        for (const auto& e : a.events())
            cause = cause || (e.kind == "run-abort" && e.detail.find("from the launcher") != std::string::npos);
        CHECK(cause);
        CHECK(scalar(f, "SELECT count(*) FROM sessions WHERE ended_ns IS NULL") == 0);
        CHECK(scalar(f, "SELECT count(*) FROM verdicts WHERE step_idx = 1") == 0);  // no step after the vote
    }
    CHECK(r.err.find("received Interrupt") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(db));  // nobody merged: `seatmark merge` of the hosts' files does
    auto m = run_process({SEATMARK_BIN, "merge", t.file("merged.db"), h0, h1}, 60);
    INFO(m.err);
    CHECK(m.exit_code == 0);
    CHECK(store::StoreReader(t.file("merged.db")).run().status == store::RunStatus::aborted);
}
