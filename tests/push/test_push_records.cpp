// What a push sends (push/push_record.h, push/push_format.h) and which URLs it takes
// (push/push_target.h): records read from a real SQLite file written by the store's writer.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "push/push_format.h"
#include "push/push_record.h"
#include "push/push_target.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::push;

namespace {

// A run of one step (pooled row + one window) and two sessions, one still running.
void write_run(const std::string& path, bool ended) {
    auto w = store::StoreWriter::open(path);
    w.begin_run({.plan_text = "name = \"p\"", .plan_path = "", .tool_version = "t", .host = "node 1",
                 .started_unix_ns = 1'700'000'000'000'000'000, .mono_origin_ns = 1'000});
    store::VerdictRow v;
    v.step_idx = 0;
    v.repeat = store::pooled_repeat;
    v.target_sessions = 2;
    v.t0_ns = 1'000;
    v.t1_ns = 2'000'001'000;  // 2 s after the origin
    v.pass = false;
    v.sessions = 2;
    v.failures = 1;
    v.frames = 240;
    v.fps_median = 59.5;
    v.p95_median_ms = std::nan("");  // not measured: left out, never 0
    v.p95_worst_ms = 18.25;
    v.reasons = {"session 2: crash", "p95 18.2 ms > 16.7 ms"};
    w.add_verdict(v);
    store::VerdictRow win = v;
    win.repeat = 0;
    w.add_verdict(win);
    w.add_session({.id = 1, .profile = "ci-tiny", .pid = 11, .device = {}, .started_ns = 1'000});
    w.add_session({.id = 2, .profile = "ci-tiny", .pid = 12, .device = {}, .started_ns = 1'000});
    w.update_session_end({.id = 2, .ended_ns = 1'000'001'000, .reason = store::SessionEnd::crash, .frames_received = 60});
    if (ended) w.end_run(store::RunStatus::finished, 1'700'000'005'000'000'000, 1);
    w.finish();
}

const Field* field(const PushRecord& r, const std::string& name) {
    for (const Field& f : r.fields)
        if (f.name == name) return &f;
    return nullptr;
}

}  // namespace

TEST_CASE("push: records are the run's verdicts and ended sessions, stamped on the wall clock") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    write_run(db, true);
    store::StoreReader reader(db);
    const auto recs = collect_records(reader);
    REQUIRE(recs.size() == 4);  // run, step, window, session 2 (session 1 never ended)
    CHECK(recs[0].key == "run");
    CHECK(recs[0].result == "finished");
    CHECK(std::get<int64_t>(field(recs[0], "max_density")->value) == 1);
    CHECK(recs[1].key == "verdict//0/-1");
    CHECK(recs[1].measurement == "seatmark_step");
    CHECK(recs[1].time_unix_ns == 1'700'000'002'000'000'000);
    CHECK(std::get<double>(field(recs[1], "fps_median")->value) == 59.5);
    CHECK(field(recs[1], "p95_median_ms") == nullptr);
    CHECK(std::get<std::string>(field(recs[1], "reasons")->value) == "session 2: crash; p95 18.2 ms > 16.7 ms");
    CHECK(recs[2].measurement == "seatmark_window");
    CHECK(recs[3].key == "session/2");
    CHECK(recs[3].result == "crash");
    CHECK(recs[3].time_unix_ns == 1'700'000'001'000'000'000);
    // The same file read again gives the same records (what makes the ledger's keys mean anything).
    CHECK(influx_line(collect_records(reader)[1]) == influx_line(recs[1]));
}

TEST_CASE("push: a run still being written gives no run record, and its running sessions none") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    write_run(db, false);  // the writer finished without end_run: no writer alive -> crashed
    store::StoreReader reader(db);
    const auto recs = collect_records(reader);
    REQUIRE(recs.size() == 4);
    CHECK(recs[0].result == "crashed");  // effective status of a run whose writer is gone
}

TEST_CASE("push: InfluxDB line protocol escapes tags and strings and types every field") {
    PushRecord r;
    r.measurement = "seatmark_step";
    r.time_unix_ns = 42;
    r.tags = {{"host", "node 1,a=b"}, {"empty", ""}};
    r.fields = {{"pass", false, ""}, {"frames", int64_t(240), "frames"}, {"fps", 59.5, "fps"},
                {"reasons", std::string("a \"b\"\\c\nd"), ""}};
    CHECK(influx_line(r) ==
          "seatmark_step,host=node\\ 1\\,a\\=b pass=false,frames=240i,fps=59.5,reasons=\"a \\\"b\\\"\\\\c d\" 42");
}

TEST_CASE("push: a JSON line has ReFrame's httpjson keys") {
    PushRecord r;
    r.key = "verdict//0/-1";
    r.measurement = "seatmark_step";
    r.result = "pass";
    r.time_unix_ns = 1'700'000'002'123'000'000;
    r.tags = {{"host", "h"}, {"step", "0"}};
    r.fields = {{"p95_worst_ms", 18.25, "ms"}, {"pass", true, ""}};
    const auto j = nlohmann::json::parse(json_line(r));
    CHECK(j["facility"] == "seatmark");
    CHECK(j["check_name"] == "seatmark_step");
    CHECK(j["check_result"] == "pass");
    CHECK(j["hostname"] == "h");
    CHECK(j["check_job_completion_time"] == "2023-11-14T22:13:22.123Z");
    CHECK(j["check_perf_p95_worst_ms_value"] == 18.25);
    CHECK(j["check_perf_p95_worst_ms_unit"] == "ms");
    CHECK(j["check_perf_p95_worst_ms_ref"].is_null());
    CHECK(j["pass"] == true);
    CHECK(j["seatmark_record"] == "verdict//0/-1");
    CHECK(json_line(r).find('\n') == std::string::npos);
}

TEST_CASE("push: URLs are checked before anything starts, naming the option") {
    CHECK_THROWS_AS(parse_push_url("influx://127.0.0.1:8087/seat mark", "--push"), InputError);
    const PushTarget t = parse_push_url("influx://127.0.0.1/runs?rp=week", "--push");
    CHECK(t.kind == SinkKind::influx);
    CHECK(t.port == "8086");
    CHECK(t.target == "/write?db=runs&precision=ns&rp=week");
    const PushTarget h = parse_push_url("https://[::1]:9443/ingest", "--push");
    CHECK(h.kind == SinkKind::json);
    CHECK(h.tls);
    CHECK(h.host == "::1");
    CHECK(h.port == "9443");
    CHECK(h.target == "/ingest");
    CHECK(parse_push_url("http://example.org", "--push").target == "/");
    for (const char* bad : {"influx://h:8086/", "influx://h:8086/a/b", "ftp://h/x", "h:8086/x", "http://:80/x",
                            "http://h:99999/x", "http://user:pw@h/x", "influx://h/db?db=other"}) {
        try {
            parse_push_url(bad, "--push");
            FAIL("accepted " << bad);
        } catch (const InputError& e) {
            CHECK(std::string(e.what()).find("--push '" + std::string(bad) + "'") == 0);
        }
    }
    CHECK(parse_header("Authorization:  Bearer X ", "--push-header") == Header{"Authorization", "Bearer X"});
    CHECK_THROWS_AS(parse_header("Bad Name: x", "--push-header"), InputError);
}

TEST_CASE("push: a header file is a regular file, read whole: a device or a folder is refused, naming it") {
    // Issue 35 cause 6 (the same cause here): a header file that was /dev/zero was read without end.
    test::TempDir dir;
    for (const std::string& p : {std::string("/dev/zero"), dir.path}) {
        CAPTURE(p);
        try {
            (void)read_header_file(p);
            FAIL("read");
        } catch (const InputError& e) {
            CHECK(std::string(e.what()).find(p + ": cannot read the header file") != std::string::npos);
        }
    }
    test::write_file(dir.file("h"), "# a comment\nAuthorization: Bearer abc\r\n\nX-Seat: 1\n");
    const auto h = read_header_file(dir.file("h"));
    REQUIRE(h.size() == 2);
    CHECK(h[0].first == "Authorization");
    CHECK(h[0].second == "Bearer abc");
    CHECK(h[1].first == "X-Seat");
}
