// `seatmark run --push` and `seatmark push` as users run them: the real binary on a one-step plan
// with synthetic sessions (alone, and as a pool of two ranks under a real mpirun), sinks started
// here (a loopback HTTP server, a real influxd). What a
// sink must receive is known from the run's own database: collect_records() read after the run
// gives exactly the records, and json_line() each one's line.
#include <doctest/doctest.h>

#include "tests/push/http_sink.h"
#include "tests/push/influxd.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "push/push_format.h"
#include "push/push_ledger.h"
#include "push/push_record.h"
#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"
#include "tests/support/run_db.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

// One step of one synthetic session: a short run that needs no Vulkan.
std::string write_plan(const TempDir& dir) {
    const std::string path = dir.file("plan.toml");
    write_file(path, "name = \"push\"\n[run]\nallow_software = true\nheartbeat_timeout = \"5s\"\nstop = \"max\"\n"
                     "[steps]\nlist = [1]\nsettle = \"1s\"\nwindow = \"2s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    return path;
}

ProcessResult run_with(const TempDir& dir, const std::string& db, std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", write_plan(dir), "--db", db, "-q", "--listen", "off",
                                     "--session-args", "--synthetic-fps 30"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(seatmark_argv(args), 120);
}

// Every line the run's database gives, sorted: what a JSON sink must hold, no more, no less.
std::vector<std::string> expected_lines(const std::string& db) {
    std::vector<std::string> out;
    for (const push::PushRecord& r : push::collect_records(store::StoreReader(db))) out.push_back(push::json_line(r));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("run --push: a JSON sink receives every record of the finished run, once, with the header") {
    TempDir dir;
    Sink sink;
    const std::string db = dir.file("run.db");
    const auto r = run_with(dir, db, {"--push", sink.url(), "--push-header", "Authorization: Bearer t0ken"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto expected = expected_lines(db);
    // The run's record, the step, its window(s) and the session, at least.
    REQUIRE(expected.size() >= 4);
    CHECK(sorted(sink.lines()) == expected);
    CHECK(has(r.err, "sent " + std::to_string(expected.size()) + " records to " + sink.url()));
    std::lock_guard l(sink.m);
    for (const auto& a : sink.auth) CHECK(a == "Bearer t0ken");
    for (const auto& t : sink.targets) CHECK(t == "/ingest");
    // Each line is the ReFrame-shaped object with the run's outcome.
    bool run_seen = false;
    for (const auto& line : expected) {
        const auto j = nlohmann::json::parse(line);
        if (j["seatmark_record"] == "run") {
            run_seen = true;
            CHECK(j["check_result"] == "finished");
        }
    }
    CHECK(run_seen);
}

TEST_CASE("run --push: a sink that is down leaves the exit code and keeps the records, and seatmark push sends them later") {
    TempDir dir;
    const uint16_t port = free_port();  // nothing listens there yet
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/ingest";
    const std::string db = dir.file("run.db");
    const auto r = run_with(dir, db, {"--push", url, "--push-timeout", "1"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);  // the run finished: what it exits with without --push
    CHECK(store::StoreReader(db).effective_status() == store::RunStatus::finished);
    const auto expected = expected_lines(db);
    CHECK(has(r.err, std::to_string(expected.size()) + " of " + std::to_string(expected.size()) + " records not sent"));
    CHECK(has(r.err, "`seatmark push " + db + "`"));
    CHECK(push::ledger_urls(db) == std::vector<std::string>{url});

    // Still down: pending, exit 1.
    const auto p0 = run_process(seatmark_argv({"push", db, "--timeout", "0.5"}), 60);
    INFO(p0.out << p0.err);
    CHECK(p0.exit_code == 1);

    // Up now, at the URL the run named: `seatmark push DB` sends exactly what was kept.
    Sink sink(port);
    const auto p1 = run_process(seatmark_argv({"push", db}), 60);
    INFO(p1.out << p1.err);
    CHECK(p1.exit_code == 0);
    CHECK(has(p1.out, "sent " + std::to_string(expected.size()) + " records to " + url));
    CHECK(sorted(sink.lines()) == expected);

    // Nothing is pending any more: a second push sends nothing.
    const auto p2 = run_process(seatmark_argv({"push", db}), 60);
    INFO(p2.out << p2.err);
    CHECK(p2.exit_code == 0);
    CHECK(has(p2.out, url + " already has all " + std::to_string(expected.size()) + " records"));
    CHECK(sink.lines().size() == expected.size());
}

TEST_CASE("run --push: a bad URL or header is refused before the run starts, and no database is made") {
    TempDir dir;
    const std::string db = dir.file("run.db");
    write_file(dir.file("headers"), "# a token\nAuthorization Bearer x\n");
    struct Case {
        std::vector<std::string> args;
        std::string names;
    };
    const std::vector<Case> cases = {
        {{"--push", "ftp://127.0.0.1/x"}, "--push 'ftp://127.0.0.1/x': unknown scheme 'ftp'"},
        {{"--push", "influx://127.0.0.1:8086/"}, "--push 'influx://127.0.0.1:8086/'"},
        {{"--push", "http://user:pw@127.0.0.1/x"}, "credentials in the URL"},
        {{"--push", "http://127.0.0.1:1/x", "--push-header", "no colon"}, "--push-header: no header name"},
        {{"--push", "http://127.0.0.1:1/x", "--push-header-file", dir.file("headers")}, dir.file("headers") + ":2"},
        {{"--push", "http://127.0.0.1:1/x", "--push-header-file", dir.file("absent")}, dir.file("absent")},
        {{"--push-header", "A: b"}, "go with --push URL"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.names);
        const auto r = run_with(dir, db, c.args);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 2);
        CHECK(has(r.err, c.names));
        CHECK_FALSE(std::filesystem::exists(db));
    }
}

TEST_CASE("seatmark push: bad input exits 2 naming what to give") {
    TempDir dir;
    const auto missing = run_process(seatmark_argv({"push", dir.file("none.db"), "http://127.0.0.1:1/x"}), 30);
    CHECK(missing.exit_code == 2);
    CHECK(has(missing.err, dir.file("none.db")));
    // A run database no sink was named for: the URL is asked for.
    const std::string db = dir.file("run.db");
    const auto r = run_with(dir, db, {});
    REQUIRE(r.exit_code == 0);
    const auto none = run_process(seatmark_argv({"push", db}), 30);
    CHECK(none.exit_code == 2);
    CHECK(has(none.err, "no sink has been pushed to"));
    const auto bad = run_process(seatmark_argv({"push", db, "https://127.0.0.1:99999/x"}), 30);
    CHECK(bad.exit_code == 2);
    CHECK(has(bad.err, "port '99999'"));
    CHECK_FALSE(std::filesystem::exists(push::ledger_dir(db)));  // nothing was tried
}

TEST_CASE("run --push influx://: a real InfluxDB 1.x holds the run's points, read back by a query") {
    if (!influxd_installed()) SEATMARK_SKIP("influxd not installed (Debian package influxdb)");
    TempDir dir;
    const Influxd influxd(dir, "seatmark");
    const std::string db = dir.file("run.db");
    const auto r = run_with(dir, db, {"--push", influxd.write_url("seatmark")});
    REQUIRE_MESSAGE(r.exit_code == 0, r.out << r.err);
    const auto records = push::collect_records(store::StoreReader(db));
    CHECK_MESSAGE(has(r.err, "sent " + std::to_string(records.size()) + " records to " + influxd.write_url("seatmark")), r.err);
    size_t sessions = 0, steps = 0, windows = 0;
    for (const auto& rec : records) {
        sessions += rec.measurement == "seatmark_session";
        steps += rec.measurement == "seatmark_step";
        windows += rec.measurement == "seatmark_window";
    }
    const store::StoreReader reader(db);
    CHECK(sessions == reader.sessions().size());
    const auto j = nlohmann::json::parse(
        influxd.query("seatmark", "SELECT count(frames_received) FROM seatmark_session; SELECT count(frames) FROM "
                                  "seatmark_step; SELECT count(frames) FROM seatmark_window; SELECT status FROM seatmark_run")
            .body);
    CAPTURE(j.dump());
    CHECK(j["results"][0]["series"][0]["values"][0][1] == sessions);
    CHECK(j["results"][1]["series"][0]["values"][0][1] == steps);
    CHECK(j["results"][2]["series"][0]["values"][0][1] == windows);
    CHECK(j["results"][3]["series"][0]["values"][0][1] == "finished");
    // The step's frame count as the database has it.
    const auto frames = nlohmann::json::parse(influxd.query("seatmark", "SELECT frames FROM seatmark_step").body);
    int64_t db_frames = 0;
    for (const auto& v : reader.verdicts())
        if (v.repeat == store::pooled_repeat) db_frames = v.frames;
    CHECK(frames["results"][0]["series"][0]["values"][0][1] == db_frames);
    MESSAGE("influxd holds " << records.size() << " points of a real run: " << sessions << " session(s), " << steps
                             << " step(s), " << windows << " window(s), frames " << db_frames);
}

TEST_CASE("run --push under mpirun: rank 0 alone pushes the merged database, every host's records once") {
    TempDir t;
    Sink sink;
    write_file(t.file("pool.toml"), pool_plan("2", ""));
    const std::string merged = t.file("pool.db");
    auto argv = pool_argv(2, t.file("pool.toml"), merged);
    argv.insert(argv.end(), {"--session-args", "--synthetic-fps 30", "--push", sink.url()});
    const auto r = run_process(argv, 120, mpi_env);
    INFO(r.out << r.err);
    REQUIRE_FALSE(r.timed_out);
    REQUIRE(r.exit_code == 0);
    const auto expected = expected_lines(merged);
    CHECK(sorted(sink.lines()) == expected);  // once: a second rank pushing would double them
    CHECK(has(r.err, "sent " + std::to_string(expected.size()) + " records to " + sink.url()));
    std::set<std::string> hosts;
    for (const auto& line : expected) {
        const auto j = nlohmann::json::parse(line);
        if (j["check_name"] == "seatmark_session") hosts.insert(j["hostname"].get<std::string>());
    }
    CHECK(hosts == std::set<std::string>{"h0", "h1"});
    CHECK_FALSE(std::filesystem::exists(push::ledger_dir(t.file("pool.h1.db"))));  // rank 1 sent nothing

    // A bad header file stops every rank before the pool starts (rank 0 checks, all refuse).
    auto bad = pool_argv(2, t.file("pool.toml"), t.file("bad.db"));
    bad.insert(bad.end(), {"--push", sink.url(), "--push-header-file", t.file("absent")});
    const auto b = run_process(bad, 60, mpi_env);
    INFO(b.out << b.err);
    CHECK(b.exit_code == 2);
    CHECK(has(b.err, t.file("absent")));
    CHECK_FALSE(std::filesystem::exists(t.file("bad.h0.db")));
    CHECK_FALSE(std::filesystem::exists(t.file("bad.h1.db")));
}
