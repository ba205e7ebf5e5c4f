// Schema 3, the per-host data model: host columns round-trip, a single-host writer names its
// host on every session, per-host verdicts sit beside the pool's, and a version-2 file (made
// with the version-2 schema text kept in tests/fixtures/schema_v2.sql) reads as a pool of one.
#include <doctest/doctest.h>

#include <string>

#include "common/errors.h"
#include "store/schema.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::store;

TEST_CASE("store: schema 3 keys sessions, samples, events and verdicts by host") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    {
        StoreWriter w = StoreWriter::open(db);
        w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "node0", .pool_id = "p-1"});
        w.add_host({.hostname = "node0", .cpu_model = "x", .rank = 0});
        w.add_host({.hostname = "node1",
                    .cpu_model = "y",
                    .rank = 1,
                    .role = std::string(role_rank),
                    .clock_offset_ns = -12345,
                    .clock_uncertainty_ns = 800,
                    .lost = true,
                    .lost_step = 2,
                    .lost_detail = "no answer within 5 s at window open",
                    .agent = "none: no sampler"});
        w.add_session({.id = 1, .profile = "p", .pid = 10, .device = {}, .started_ns = 5});  // writer's host
        w.add_session({.id = 2, .profile = "p", .pid = 11, .device = {}, .started_ns = 6, .host = "node1"});
        w.add_sample({.t_ns = 7, .session_id = 2, .source = "proc", .metric = "cpu_pct", .value = 3, .host = "node1"});
        w.add_sample({.t_ns = 8, .session_id = {}, .source = "proc", .metric = "host_cpu_pct", .value = 4});
        w.add_event({.t_ns = 9, .session_id = {}, .kind = "host-lost", .detail = "node1", .host = "node1"});
        w.add_verdict({.step_idx = 0, .repeat = -1, .pass = false, .reasons = {"pool reason"}});
        w.add_verdict({.host = "node0", .step_idx = 0, .repeat = -1, .pass = true});
        w.add_verdict({.host = "node1", .step_idx = 0, .repeat = -1, .pass = false, .reasons = {"a", "b"}});
        w.end_run(RunStatus::degraded, 0, 0);
        w.finish();
    }
    StoreReader r(db);
    CHECK(r.schema_version() == 4);
    CHECK(r.run().status == RunStatus::degraded);
    CHECK(r.run().pool_id == "p-1");
    CHECK(r.effective_status() == RunStatus::degraded);
    auto hosts = r.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[0].hostname == "node0");
    CHECK(hosts[0].rank == 0);
    CHECK(hosts[0].role == "orchestrator");
    CHECK(hosts[0].clock_offset_ns == 0);
    CHECK_FALSE(hosts[0].clock_uncertainty_ns);
    CHECK_FALSE(hosts[0].lost);
    CHECK(hosts[0].agent == "local");
    CHECK(hosts[1].rank == 1);
    CHECK(hosts[1].role == "rank");
    CHECK(hosts[1].clock_offset_ns == -12345);
    CHECK(hosts[1].clock_uncertainty_ns == 800);
    CHECK(hosts[1].lost);
    CHECK(hosts[1].lost_step == 2);
    CHECK(hosts[1].lost_detail == "no answer within 5 s at window open");
    CHECK(hosts[1].agent == "none: no sampler");

    auto sessions = r.sessions();
    REQUIRE(sessions.size() == 2);
    CHECK(sessions[0].host == "node0");  // the single-host writer names its own host
    CHECK(sessions[1].host == "node1");
    CHECK(r.samples({.host = "node1"}).size() == 1);
    CHECK(r.samples({.host = ""}).size() == 1);
    CHECK(r.samples().size() == 2);
    auto ev = r.events();
    REQUIRE(ev.size() == 1);
    CHECK(ev[0].host == "node1");

    auto pool = r.verdicts();  // the pool's rows only
    REQUIRE(pool.size() == 1);
    CHECK(pool[0].host.empty());
    CHECK(pool[0].reasons == std::vector<std::string>{"pool reason"});
    auto n1 = r.host_verdicts("node1");
    REQUIRE(n1.size() == 1);
    CHECK(n1[0].reasons == std::vector<std::string>{"a", "b"});
    CHECK(r.host_verdicts("node0").at(0).pass);
    CHECK(r.all_verdicts().size() == 3);
    CHECK(describe(RunStatus::degraded) == "degraded (a host was lost)");
}

TEST_CASE("store: a version-2 file reads as a pool of one host") {
    test::TempDir dir;
    const std::string db = dir.file("v2.db");
    {
        Db d(db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        d.exec(test::read_file(std::string(SEATMARK_SOURCE_DIR) + "/tests/fixtures/schema_v2.sql").c_str(), "v2 schema");
        d.exec("PRAGMA user_version = 2; PRAGMA application_id = 1397047636;"
               "INSERT INTO runs(id, plan_text, plan_path, tool_version, host, started_unix_ns, mono_origin_ns, status,"
               " max_density) VALUES(1, '', '', '0.1', 'old-host', 1, 2, 'finished', 1);"
               "INSERT INTO hosts VALUES(1, 'old-host', 'cpu', 4, 1000, 'Debian', '6.1', '', '', 'llvmpipe');"
               "INSERT INTO sessions(run_id, id, profile, pid, started_ns) VALUES(1, 0, 'ci-tiny', 42, 10);"
               "INSERT INTO samples VALUES(11, 0, 'proc', 'cpu_pct', 12.5);"
               "INSERT INTO events VALUES(12, NULL, 'step-begin', 'step 0');"
               "INSERT INTO verdicts(run_id, step_idx, repeat, target_sessions, t0_ns, t1_ns, judged_ns, pass,"
               " sessions, failures, frames, dropped) VALUES(1, 0, -1, 1, 0, 10, 11, 0, 1, 0, 5, 0);"
               "INSERT INTO verdict_reasons VALUES(1, 0, -1, 0, 'session 0: p95 45 ms > 33.3 ms');",
               "v2 rows");
    }
    StoreReader r(db);
    CHECK(r.schema_version() == 2);
    CHECK(r.run().pool_id.empty());
    CHECK(r.run().host == "old-host");
    auto hosts = r.hosts();
    REQUIRE(hosts.size() == 1);
    CHECK(hosts[0].hostname == "old-host");
    CHECK(hosts[0].role == "orchestrator");
    CHECK_FALSE(hosts[0].rank);
    CHECK_FALSE(hosts[0].lost);
    REQUIRE(r.sessions().size() == 1);
    CHECK(r.sessions()[0].host == "old-host");
    CHECK(r.samples().at(0).host.empty());
    CHECK(r.events().at(0).host.empty());
    auto v = r.verdicts();
    REQUIRE(v.size() == 1);
    CHECK(v[0].host.empty());
    CHECK(v[0].reasons == std::vector<std::string>{"session 0: p95 45 ms > 33.3 ms"});
    CHECK(r.all_verdicts().size() == 1);
    CHECK(r.host_verdicts("old-host").empty());
}

TEST_CASE("store: the schema refuses an unknown host status or role") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    StoreWriter::open(db).finish();
    Db d(db, SQLITE_OPEN_READWRITE);
    CHECK_THROWS_AS(d.exec("INSERT INTO hosts(run_id, hostname, cpu_model, cpu_count, mem_total_bytes, os, kernel, gpu,"
                           " driver, vulkan_device, status) VALUES(1, 'h', '', 0, 0, '', '', '', '', '', 'gone')",
                           "test"),
                    StoreError);
    CHECK_THROWS_AS(d.exec("INSERT INTO hosts(run_id, hostname, cpu_model, cpu_count, mem_total_bytes, os, kernel, gpu,"
                           " driver, vulkan_device, role) VALUES(1, 'h', '', 0, 0, '', '', '', '', '', 'boss')",
                           "test"),
                    StoreError);
}
