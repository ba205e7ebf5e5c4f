// `seatmark demo --hosts 2`: a two-host pool on this machine through the real mpirun on PATH,
// merged and reported; without mpirun on PATH it says what to install.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "core/plan.h"
#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("pool: seatmark demo --hosts 2 runs a two-host pool with mpirun, prints its pool table and E(H), writes its report") {
    TempDir t;
    std::vector<std::string> env = mpi_env;
    env.push_back("PATH=" + std::filesystem::path(mpirun_path()).parent_path().string() + ":/usr/bin:/bin");
    auto r = run_process({SEATMARK_BIN, "demo", "--hosts", "2", "--quick", "--out", t.path, "-q", "--listen", "off"},
                         150, env);
    INFO(r.err);
    INFO(r.out);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("pool run finished on 2 host(s)") != std::string::npos);
    CHECK(std::filesystem::exists(t.file("report/index.html")));
    store::StoreReader m(t.file("run.db"));
    auto hosts = m.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[0].hostname == "demo-h0");
    CHECK(hosts[1].hostname == "demo-h1");
    CHECK(std::filesystem::exists(t.file("pool-demo.toml")));
    // The ramp on 1 host, then on 2: per-host steps, so the 2-host ramp runs twice the sessions.
    auto steps = m.steps();
    REQUIRE(steps.size() == 4);
    std::vector<int> pool_hosts, targets;
    for (const auto& s : steps) {
        pool_hosts.push_back(s.pool_hosts.value_or(0));
        targets.push_back(s.target_sessions);
    }
    CHECK(pool_hosts == std::vector<int>{1, 1, 2, 2});
    CHECK(targets == std::vector<int>{1, 2, 2, 4});
    // The pool table at the end: a row per step with each host's share and verdict as its own
    // rows say (demo-h1 idle on 1 host), then the pool's.
    CHECK(r.out.find("pool steps (each host:") != std::string::npos);
    auto line_of = [&](int step) {
        const size_t at = r.out.find("\n  " + std::to_string(step) + " ");
        return at == std::string::npos ? std::string() : r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    };
    auto cell = [](const store::VerdictRow& v) {
        return (v.pass ? "pass " : "FAIL ") + std::to_string(v.target_sessions) +
               (v.failures ? " (" + std::to_string(v.failures) + " failed)" : "");
    };
    std::map<int, bool> pool_pass;
    for (const auto& v : m.verdicts())
        if (v.repeat == store::pooled_repeat) pool_pass[v.step_idx] = v.pass;
    REQUIRE(pool_pass.size() == 4);
    for (const auto& [idx, pass] : pool_pass) {
        const std::string line = line_of(idx + 1);
        CAPTURE(line);
        CHECK(line.size() > 4);
        CHECK(line.substr(line.size() - 4) == (pass ? "pass" : "FAIL"));
        if (idx < 2) CHECK(line.find(" idle ") != std::string::npos);
    }
    for (const std::string host : {"demo-h0", "demo-h1"})
        for (const auto& v : m.host_verdicts(host))
            if (v.repeat == store::pooled_repeat) {
                CAPTURE(host);
                CHECK(line_of(v.step_idx + 1).find(" " + cell(v) + " ") != std::string::npos);
            }
    CHECK(r.out.find("rendered on: demo-h0 '" + m.sessions().front().device.device_name + "'") != std::string::npos);
    // E(H) printed per pool size: the number, or why there is none, from the pool's step verdicts
    // (max density: the last step that passed with every step below it in its ramp).
    REQUIRE(m.scaling().size() == 2);
    std::map<int, int64_t> passing = {{1, pool_pass[0] ? (pool_pass[1] ? 2 : 1) : 0},
                                      {2, pool_pass[2] ? (pool_pass[3] ? 4 : 2) : 0}};
    for (int h : {1, 2}) {
        const std::string on = "  on " + std::to_string(h) + " host(s): max " + std::to_string(passing[h]) + " sessions, E(" +
                               std::to_string(h) + ")";
        CAPTURE(on);
        if (passing[1] == 0) {
            CHECK(r.out.find(on + " not known: no step passed on 1 host\n") != std::string::npos);
        } else {
            char e[16];
            std::snprintf(e, sizeof e, "%.3f", double(passing[h]) / (h * double(passing[1])));
            CHECK(r.out.find(on + " = " + e + "\n") != std::string::npos);
        }
    }
    CHECK(r.out.find("null") == std::string::npos);
    MESSAGE("pool demo on this machine: max " << passing[1] << " on 1 host, " << passing[2] << " on 2");
}

TEST_CASE("pool: the demo's series lets E(2) reach 1: sessions that always pass, E(H) printed as numbers") {
    // The demo's own plan with synthetic sessions at 60 FPS (no rendering: every step passes), so
    // by construction the 1-host ramp passes 1 and 2 sessions, the 2-host ramp 2 and 4: E(2) = 4 / (2 x 2).
    TempDir t;
    write_file(t.file("pool-demo.toml"), core::demo_pool_plan_text(2, true));
    auto argv = pool_argv(2, t.file("pool-demo.toml"), t.file("run.db"), "demo-h{rank}");
    argv.insert(argv.end(), {"--session-args", "--synthetic-fps 60"});
    auto r = run_process(argv, 150, mpi_env);
    INFO(r.err);
    INFO(r.out);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("  on 1 host(s): max 2 sessions, E(1) = 1.000\n") != std::string::npos);
    CHECK(r.out.find("  on 2 host(s): max 4 sessions, E(2) = 1.000\n") != std::string::npos);
    CHECK(r.out.find("pool run finished on 2 host(s); max density 4 sessions") != std::string::npos);
    // Every step's row: the hosts' shares and verdicts, h1 idle in the 1-host ramp.
    CHECK(r.out.find("  1    1     1        pass 1  idle    pass\n") != std::string::npos);
    CHECK(r.out.find("  2    1     2        pass 2  idle    pass\n") != std::string::npos);
    CHECK(r.out.find("  3    2     2        pass 1  pass 1  pass\n") != std::string::npos);
    CHECK(r.out.find("  4    2     4        pass 2  pass 2  pass\n") != std::string::npos);
    CHECK(r.out.find("rendered on: demo-h0 'synthetic'") != std::string::npos);
}

TEST_CASE("pool: seatmark demo --hosts without mpirun on PATH says what to install") {
    TempDir t;
    auto r = run_process({SEATMARK_BIN, "demo", "--hosts", "2", "--out", t.path, "-q", "--listen", "off"}, 30,
                         {"PATH=" + t.path});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("no mpirun on PATH") != std::string::npos);
    CHECK(r.err.find("apt-get install openmpi-bin") != std::string::npos);
}

TEST_CASE("demo --db refuses an existing file, as run --db does, before anything starts (one host and a pool)") {
    TempDir t;
    std::vector<std::string> env = mpi_env;
    env.push_back("PATH=" + std::filesystem::path(mpirun_path()).parent_path().string() + ":/usr/bin:/bin");
    const std::string old = t.file("old.db");
    write_file(old, "a file the user keeps\n");
    for (const std::vector<std::string>& hosts : {std::vector<std::string>{}, std::vector<std::string>{"--hosts", "2", "--quick"}}) {
        std::vector<std::string> argv = {SEATMARK_BIN, "demo", "--db", old, "--out", t.file("out"), "-q", "--listen", "off"};
        argv.insert(argv.end(), hosts.begin(), hosts.end());
        auto r = run_process(argv, 60, env);
        const std::string pool = hosts.empty() ? "one host" : "pool";
        INFO(pool << "\n" << r.out << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(old + " exists; choose another --db or remove it") != std::string::npos);
        // Refused first: no mpirun started, nothing written, the old file not read as a run.
        CHECK(r.err.find("mpirun") == std::string::npos);
        CHECK(r.err.find("not an SQLite database") == std::string::npos);
        CHECK_FALSE(std::filesystem::exists(t.file("out/pool-demo.toml")));
        CHECK_FALSE(std::filesystem::exists(t.file("report")));
        CHECK(read_file(old) == "a file the user keeps\n");
    }
}
