// Delivery to real sinks (push/deliver.h): a real InfluxDB 1.x from Debian started here on
// loopback, and a small HTTP server (tests/push/http_sink.h) that answers 500, never answers, or
// takes the records. Nothing is lost: what a sink did not take stays pending and a later delivery sends it
// exactly once (the ledger beside the database).
#include <doctest/doctest.h>

#include "tests/push/http_sink.h"
#include "tests/push/influxd.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "push/deliver.h"
#include "push/http_post.h"
#include "push/push_format.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"
#include "tests/support/run_db.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::push;
using namespace std::chrono_literals;

namespace {

// Three steps (pooled + one window each) and three ended sessions: 1 + 6 + 3 = 10 records.
std::string write_run(const test::TempDir& dir) {
    const std::string path = dir.file("run.db");
    auto w = store::StoreWriter::open(path);
    w.begin_run({.plan_text = "name = \"p\"", .plan_path = "", .tool_version = "t", .host = "node1",
                 .started_unix_ns = 1'700'000'000'000'000'000, .mono_origin_ns = 0});
    for (int step = 0; step < 3; ++step)
        for (int repeat : {store::pooled_repeat, 0}) {
            store::VerdictRow v;
            v.step_idx = step;
            v.repeat = repeat;
            v.target_sessions = step + 1;
            v.t0_ns = int64_t(step) * 10'000'000'000;
            v.t1_ns = v.t0_ns + 5'000'000'000;
            v.pass = step < 2;
            v.sessions = step + 1;
            v.frames = 300 * (step + 1);
            v.fps_median = 60.0 - step * 0.25;
            v.p95_worst_ms = 16.5 + step;
            w.add_verdict(v);
        }
    for (int id = 1; id <= 3; ++id) {
        w.add_session({.id = id, .profile = "ci-tiny", .pid = id, .device = {}, .started_ns = 0});
        w.update_session_end({.id = id, .ended_ns = 30'000'000'000 + id, .reason = store::SessionEnd::ok,
                              .frames_received = 1000 + id});
    }
    w.end_run(store::RunStatus::finished, 1'700'000'031'000'000'000, 2);
    w.finish();
    return path;
}

using test::Sink;

size_t lines(const std::vector<std::string>& bodies) {
    size_t n = 0;
    for (const auto& b : bodies) n += size_t(std::count(b.begin(), b.end(), '\n'));
    return n;
}

}  // namespace

TEST_CASE("push: a JSON sink that answers 500, then never, loses nothing, and a later delivery sends each record once") {
    test::TempDir dir;
    const std::string db = write_run(dir);
    const auto records = collect_records(store::StoreReader(db));
    REQUIRE(records.size() == 10);
    Sink sink;
    const PushTarget t = parse_push_url(sink.url(), "--push");
    PushOptions o;
    o.timeout = 500ms;
    o.wait_s = 1;
    o.batch = 4;
    o.headers = {{"Authorization", "Bearer s3cret"}};

    sink.mode = Sink::error500;
    {
        Ledger ledger(db, t.url);
        const Delivery d = deliver(records, t, ledger, o);
        CHECK(d.sent_now == 0);
        CHECK(d.pending == 10);
        CHECK(d.attempts >= 2);  // retried with backoff within wait_s
        CHECK(d.error.find("500") == 0);
    }
    {
        // A server that takes requests and never answers: its own, so that the requests it holds
        // are not read later by the sink above (a server that processes a request after the client
        // gave up gets it again later: delivery is exactly once only when answers arrive in time;
        // seatmark_record lets such an ingest drop the repeat).
        Sink slow;
        slow.mode = Sink::silent;
        const PushTarget st = parse_push_url(slow.url(), "--push");
        Ledger ledger(db, st.url);
        const Delivery d = deliver(records, st, ledger, o);
        CHECK(d.pending == 10);
        CHECK(d.error.find("no answer") != std::string::npos);
    }
    CHECK(ledger_urls(db).size() == 2);  // both sinks are named beside the database
    sink.mode = Sink::ok;
    {
        Ledger ledger(db, t.url);  // a later run of the tool: the ledger is read from disk
        const Delivery d = deliver(records, t, ledger, o);
        CHECK(d.sent_now == 10);
        CHECK(d.pending == 0);
        CHECK(d.error.empty());
    }
    {
        Ledger ledger(db, t.url);
        const Delivery d = deliver(records, t, ledger, o);
        CHECK(d.sent_now == 0);  // exactly once: nothing is sent twice
        CHECK(d.attempts == 0);
    }
    std::lock_guard l(sink.m);
    CHECK(sink.bodies.size() == 3);  // batches of 4, 4, 2
    CHECK(lines(sink.bodies) == 10);
    for (const auto& a : sink.auth) CHECK(a == "Bearer s3cret");
    std::set<std::string> keys;
    for (const auto& b : sink.bodies) {
        std::istringstream in(b);
        for (std::string line; std::getline(in, line);) keys.insert(nlohmann::json::parse(line)["seatmark_record"]);
    }
    CHECK(keys.size() == 10);
}

TEST_CASE("push: a sink that is down keeps every record pending") {
    test::TempDir dir;
    const std::string db = write_run(dir);
    const auto records = collect_records(store::StoreReader(db));
    const PushTarget t = parse_push_url("http://127.0.0.1:" + std::to_string(test::free_port()) + "/x", "--push");
    Ledger ledger(db, t.url);
    PushOptions o;
    o.timeout = 500ms;
    o.wait_s = 0.5;
    const Delivery d = deliver(records, t, ledger, o);
    CHECK(d.pending == 10);
    CHECK(d.sent_now == 0);
    CHECK_FALSE(d.error.empty());
}

TEST_CASE("push: a real InfluxDB 1.x takes the records and a query reads back the run's figures") {
    if (!test::influxd_installed()) SEATMARK_SKIP("influxd not installed (Debian package influxdb)");
    test::TempDir dir;
    const std::string db = write_run(dir);
    const auto records = collect_records(store::StoreReader(db));
    const test::Influxd influxd(dir, "seatmark");
    auto q = [&](const std::string& sql) { return influxd.query("seatmark", sql); };
    const PushTarget t = parse_push_url(influxd.write_url("seatmark"), "--push");
    Ledger ledger(db, t.url);
    PushOptions o;
    o.wait_s = 5;
    const Delivery d = deliver(records, t, ledger, o);
    CHECK_MESSAGE(d.pending == 0, d.error);
    CHECK(d.sent_now == 10);

    const store::StoreReader reader(db);
    const auto verdicts = reader.verdicts();
    const auto steps = nlohmann::json::parse(q("SELECT fps_median, p95_worst_ms, pass, frames FROM seatmark_step").body);
    const auto& rows = steps["results"][0]["series"][0]["values"];
    REQUIRE(rows.size() == 3);
    size_t i = 0;
    for (const auto& v : verdicts) {
        if (v.repeat != store::pooled_repeat) continue;
        CHECK(rows[i][1].get<double>() == v.fps_median);
        CHECK(rows[i][2].get<double>() == v.p95_worst_ms);
        CHECK(rows[i][3].get<bool>() == v.pass);
        CHECK(rows[i][4].get<int64_t>() == v.frames);
        ++i;
    }
    const auto counts = nlohmann::json::parse(
        q("SELECT count(frames_received) FROM seatmark_session; SELECT count(frames) FROM seatmark_window; "
          "SELECT max_density FROM seatmark_run").body);
    CHECK(counts["results"][0]["series"][0]["values"][0][1] == 3);
    CHECK(counts["results"][1]["series"][0]["values"][0][1] == 3);
    CHECK(counts["results"][2]["series"][0]["values"][0][1] == 2);
    MESSAGE("influxd took " << d.sent_now << " points; read back 3 steps, 3 windows, 3 sessions, 1 run");
}
