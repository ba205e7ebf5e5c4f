// The run database end to end with real SQLite files: every table written by StoreWriter
// comes back through StoreReader, from one thread and from many.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::store;

namespace {

std::vector<FrameRecord> make_frames(uint64_t first_seq, size_t n, int64_t t0 = 1'000'000) {
    std::vector<FrameRecord> v(n);
    for (size_t i = 0; i < n; ++i) {
        FrameRecord& f = v[i];
        f.seq = first_seq + i;
        f.t_begin_ns = t0 + static_cast<int64_t>(f.seq) * 16'000'000;
        f.cpu_ns = 1000 + static_cast<int64_t>(f.seq % 7);
        f.gpu_ns = f.seq % 5 == 0 ? -1 : 2000 + static_cast<int64_t>(f.seq);
        f.interval_ns = f.seq % 10 == 0 ? -1 : 16'000'000;
        f.latency_ns = f.seq % 3 == 0 ? 30'000'000 : -1;
        f.stretch = static_cast<uint32_t>(f.seq / 10);
        f.mode = static_cast<uint16_t>(f.seq % 6);
        f.flags = static_cast<uint16_t>(f.seq % 8);
        f.begin_interval_ns = f.seq % 10 == 0 ? -1 : 16'000'000 + static_cast<int64_t>(f.seq % 3);
        f.t_present_ns = f.t_begin_ns + 4'000'000 + static_cast<int64_t>(f.seq);
    }
    return v;
}

bool same(const FrameRecord& a, const FrameRecord& b) {
    return a.seq == b.seq && a.t_begin_ns == b.t_begin_ns && a.cpu_ns == b.cpu_ns && a.gpu_ns == b.gpu_ns &&
           a.interval_ns == b.interval_ns && a.latency_ns == b.latency_ns && a.stretch == b.stretch &&
           a.mode == b.mode && a.flags == b.flags && a.begin_interval_ns == b.begin_interval_ns &&
           a.t_present_ns == b.t_present_ns;
}

}  // namespace

TEST_CASE("store: every table round-trips through writer and reader") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    {
        StoreWriter w = StoreWriter::open(db);
        CHECK(w.begin_run({.plan_text = "[run]\nsteps = [1, 2]\n",
                           .plan_path = "plans/p.toml",
                           .tool_version = "0.1.0",
                           .host = "node1",
                           .started_unix_ns = 1'700'000'000'000'000'000,
                           .mono_origin_ns = 5'000}) == 1);
        w.add_host({.hostname = "node1", .cpu_model = "Xeon", .cpu_count = 64, .mem_total_bytes = 1LL << 38,
                    .os = "Debian 12", .kernel = "6.1.0", .gpu = "RTX PRO 6000", .driver = "nvidia 575.1",
                    .vulkan_device = "NVIDIA RTX PRO 6000"});
        w.begin_step({.idx = 0, .repeat = 0, .target_sessions = 1, .started_ns = 10});
        w.begin_step({.idx = 1, .repeat = 0, .target_sessions = 2, .started_ns = 100});
        w.end_step({.idx = 0, .repeat = 0, .window_start_ns = 20, .window_end_ns = 90, .ended_ns = 95,
                    .verdict = "pass", .detail = ""});
        w.add_session({.id = 1, .profile = "ci-tiny", .pid = 4242, .device = {}, .started_ns = 11});
        w.set_session_device(1, {.device_name = "llvmpipe", .device_type = "cpu", .driver_name = "llvmpipe",
                                 .driver_info = "Mesa 22.3", .software = true});
        w.add_session({.id = 2, .profile = "designer-medium", .pid = 4243,
                       .device = {"RTX", "discrete-gpu", "NVIDIA", "575.1", false}, .started_ns = 101});
        w.update_session_end({.id = 1, .ended_ns = 200, .reason = SessionEnd::device_lost, .exit_code = 4,
                              .signal = std::nullopt, .frames_sent = std::nullopt, .frames_received = 30,
                              .frames_lost = 2, .detail = "VK_ERROR_DEVICE_LOST"});
        w.add_frames(1, make_frames(0, 30));
        w.add_frames(2, make_frames(0, 50, 2'000'000));
        w.add_sample({.t_ns = 50, .session_id = std::nullopt, .source = "proc", .metric = "cpu_util", .value = 0.5});
        w.add_samples({{.t_ns = 40, .session_id = 1, .source = "software", .metric = "cpu_ns", .value = 1e6},
                       {.t_ns = 60, .session_id = 2, .source = "nvml", .metric = "gpu_util", .value = 42.5}});
        w.add_event({.t_ns = 30, .session_id = std::nullopt, .kind = "step-begin", .detail = "step 0"});
        w.add_event({.t_ns = 200, .session_id = 1, .kind = "session-device-lost", .detail = ""});
        w.end_run(RunStatus::finished, 1'700'000'001'000'000'000);
        w.flush();
        CHECK(w.frames_stored() == 80);
        CHECK(w.queue_depth() == 0);
        w.finish();
        CHECK_FALSE(w.error());
        CHECK_THROWS_AS(w.add_event({}), std::logic_error);
    }

    StoreReader r(db);
    CHECK(r.integrity_ok());
    RunRow run = r.run();
    CHECK(run.id == 1);
    CHECK(run.plan_text == "[run]\nsteps = [1, 2]\n");
    CHECK(run.plan_path == "plans/p.toml");
    CHECK(run.tool_version == "0.1.0");
    CHECK(run.host == "node1");
    CHECK(run.started_unix_ns == 1'700'000'000'000'000'000);
    CHECK(run.ended_unix_ns == 1'700'000'001'000'000'000);
    CHECK(run.mono_origin_ns == 5'000);
    CHECK(run.status == RunStatus::finished);
    CHECK(r.effective_status() == RunStatus::finished);
    CHECK_FALSE(r.writer_alive());

    auto hosts = r.hosts();
    REQUIRE(hosts.size() == 1);
    CHECK(hosts[0].hostname == "node1");
    CHECK(hosts[0].cpu_model == "Xeon");
    CHECK(hosts[0].cpu_count == 64);
    CHECK(hosts[0].mem_total_bytes == (1LL << 38));
    CHECK(hosts[0].os == "Debian 12");
    CHECK(hosts[0].kernel == "6.1.0");
    CHECK(hosts[0].gpu == "RTX PRO 6000");
    CHECK(hosts[0].driver == "nvidia 575.1");
    CHECK(hosts[0].vulkan_device == "NVIDIA RTX PRO 6000");

    auto steps = r.steps();
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].idx == 0);
    CHECK(steps[0].target_sessions == 1);
    CHECK(steps[0].started_ns == 10);
    CHECK(steps[0].window_start_ns == 20);
    CHECK(steps[0].window_end_ns == 90);
    CHECK(steps[0].ended_ns == 95);
    CHECK(steps[0].verdict == "pass");
    CHECK(steps[1].idx == 1);
    CHECK(steps[1].target_sessions == 2);
    CHECK_FALSE(steps[1].ended_ns);
    CHECK_FALSE(steps[1].window_start_ns);
    CHECK_FALSE(steps[1].verdict);

    auto sessions = r.sessions();
    REQUIRE(sessions.size() == 2);
    const SessionRow& s1 = sessions[0];
    CHECK(s1.id == 1);
    CHECK(s1.profile == "ci-tiny");
    CHECK(s1.pid == 4242);
    CHECK(s1.device.device_name == "llvmpipe");
    CHECK(s1.device.device_type == "cpu");
    CHECK(s1.device.driver_name == "llvmpipe");
    CHECK(s1.device.driver_info == "Mesa 22.3");
    CHECK(s1.device.software);
    CHECK(s1.started_ns == 11);
    CHECK(s1.ended_ns == 200);
    CHECK(s1.end_reason == SessionEnd::device_lost);
    CHECK(s1.exit_code == 4);
    CHECK_FALSE(s1.signal);
    CHECK_FALSE(s1.frames_sent);
    CHECK(s1.frames_received == 30);
    CHECK(s1.frames_lost == 2);
    CHECK(s1.detail == "VK_ERROR_DEVICE_LOST");
    const SessionRow& s2 = sessions[1];
    CHECK(s2.device.device_type == "discrete-gpu");
    CHECK_FALSE(s2.device.software);
    CHECK(s2.end_reason == SessionEnd::running);
    CHECK_FALSE(s2.ended_ns);

    auto f1 = r.frames(1), f2 = r.frames(2);
    auto e1 = make_frames(0, 30), e2 = make_frames(0, 50, 2'000'000);
    REQUIRE(f1.size() == e1.size());
    REQUIRE(f2.size() == e2.size());
    for (size_t i = 0; i < f1.size(); ++i) CHECK(same(f1[i], e1[i]));
    for (size_t i = 0; i < f2.size(); ++i) CHECK(same(f2[i], e2[i]));
    CHECK(r.frame_count() == 80);
    CHECK(r.frame_count(2) == 50);
    // frames_in: t_begin in [t0, t1): seqs 2, 3, 4 of session 1
    auto window = r.frames_in(1, 1'000'000 + 2 * 16'000'000, 1'000'000 + 5 * 16'000'000);
    REQUIRE(window.size() == 3);
    CHECK(window.front().seq == 2);
    CHECK(window.back().seq == 4);

    auto all = r.samples();
    REQUIRE(all.size() == 3);
    CHECK(all[0].t_ns == 40);  // ordered by time
    CHECK(all[0].session_id == 1);
    CHECK(all[0].source == "software");
    CHECK(all[0].metric == "cpu_ns");
    CHECK(all[0].value == doctest::Approx(1e6));
    CHECK_FALSE(all[1].session_id);
    auto host_wide = r.samples({.host_wide = true});
    REQUIRE(host_wide.size() == 1);
    CHECK(host_wide[0].metric == "cpu_util");
    auto gpu = r.samples({.metric = "gpu_util"});
    REQUIRE(gpu.size() == 1);
    CHECK(gpu[0].value == doctest::Approx(42.5));
    CHECK(r.samples({.session_id = 2}).size() == 1);
    CHECK(r.samples({.source = "proc"}).size() == 1);
    CHECK(r.samples({.t0 = 45, .t1 = 61}).size() == 2);

    auto events = r.events();
    REQUIRE(events.size() == 2);
    CHECK(events[0].kind == "step-begin");
    CHECK(events[0].detail == "step 0");
    CHECK_FALSE(events[0].session_id);
    CHECK(events[1].session_id == 1);
}

TEST_CASE("store: the file carries its schema version and application id") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    StoreWriter::open(db).finish();
    Db raw(db, SQLITE_OPEN_READONLY);
    CHECK(raw.pragma_int("user_version") == 4);
    CHECK(raw.pragma_int("application_id") == 0x53454154);
    Stmt mode(raw, "PRAGMA journal_mode");
    REQUIRE(mode.step());
    CHECK(mode.col_text(0) == "wal");
    Stmt idx(raw, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'frame_blocks_by_session'");
    REQUIRE(idx.step());
    CHECK(idx.col_int(0) == 1);  // finish() built it
}

TEST_CASE("store: frames from several threads are all stored, each session ordered by seq") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    constexpr int threads = 4, batches = 150, batch = 37;
    StoreWriter w = StoreWriter::open(db, {.commit_rows = 500});
    w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h"});
    for (int s = 1; s <= threads; ++s) w.add_session({.id = s, .profile = "p", .pid = s, .device = {}, .started_ns = 0});

    std::vector<std::thread> producers;
    for (int t = 0; t < threads; ++t) {
        producers.emplace_back([&w, t] {
            // Batches go out in a shuffled order, so storage order is not seq order.
            std::vector<int> order(batches);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(t)));
            for (int b : order) {
                w.add_frames(t + 1, make_frames(static_cast<uint64_t>(b) * batch, batch));
                if (b % 10 == 0) w.add_event({.t_ns = b, .session_id = t + 1, .kind = "tick", .detail = ""});
            }
        });
    }
    std::thread sampler([&w] {
        for (int i = 0; i < 200; ++i) w.add_sample({.t_ns = i, .session_id = std::nullopt, .source = "proc",
                                                    .metric = "load", .value = i * 0.5});
    });
    for (auto& p : producers) p.join();
    sampler.join();
    w.flush();
    const uint64_t total = uint64_t{threads} * batches * batch;
    CHECK(w.frames_stored() == total);

    {  // a reader sees committed data while the writer is still open
        StoreReader live(db);
        CHECK(live.frame_count() == total);
        CHECK(live.writer_alive());
        CHECK(live.effective_status() == RunStatus::running);
    }
    w.end_run(RunStatus::finished);
    w.finish();
    CHECK(w.frames_stored() == total);
    CHECK(w.frames_dropped() == 0);

    StoreReader r(db);
    CHECK(r.frame_count() == total);
    for (int s = 1; s <= threads; ++s) {
        auto frames = r.frames(s);
        REQUIRE(frames.size() == size_t{batches} * batch);
        bool in_order = true;
        for (size_t i = 0; i < frames.size(); ++i) in_order = in_order && frames[i].seq == i;
        CHECK(in_order);
    }
    CHECK(r.samples().size() == 200);
    CHECK(r.events().size() == size_t{threads} * (batches / 10));
    CHECK(r.effective_status() == RunStatus::finished);
}

TEST_CASE("store: status and end-reason text match the schema's CHECK lists") {
    for (RunStatus s : {RunStatus::running, RunStatus::finished, RunStatus::aborted, RunStatus::crashed,
                        RunStatus::degraded})
        CHECK(parse_run_status(to_string(s)) == s);
    for (SessionEnd e : {SessionEnd::running, SessionEnd::ok, SessionEnd::crash, SessionEnd::hang,
                         SessionEnd::device_lost, SessionEnd::software_fallback, SessionEnd::killed,
                         SessionEnd::error, SessionEnd::protocol})
        CHECK(parse_session_end(to_string(e)) == e);
    CHECK(to_string(SessionEnd::device_lost) == "device-lost");
    CHECK_THROWS_AS(parse_run_status("exploded"), std::invalid_argument);
    CHECK(describe(RunStatus::crashed) == "did not finish (crashed)");
}

TEST_CASE("store: every run status and session end reason round-trips through a real file, others are refused") {
    const std::vector<SessionEnd> ends = {SessionEnd::running, SessionEnd::ok, SessionEnd::crash,
                                          SessionEnd::hang, SessionEnd::device_lost, SessionEnd::software_fallback,
                                          SessionEnd::killed, SessionEnd::error, SessionEnd::protocol};
    for (RunStatus status : {RunStatus::finished, RunStatus::aborted, RunStatus::crashed, RunStatus::running,
                              RunStatus::degraded}) {
        CAPTURE(to_string(status));
        test::TempDir dir;
        const std::string path = dir.file("r.db");
        {
            auto w = StoreWriter::open(path);
            RunInfo ri;
            ri.plan_text = "name = \"x\"";
            ri.host = "h";
            w.begin_run(ri);
            for (size_t i = 0; i < ends.size(); ++i) {
                SessionInfo si;
                si.id = int(i);
                si.profile = "ci-tiny";
                si.pid = 100 + int64_t(i);
                si.started_ns = 1;
                w.add_session(si);
                if (ends[i] == SessionEnd::running) continue;  // the default, as stored before its end
                SessionResult r;
                r.id = int(i);
                r.ended_ns = 2;
                r.reason = ends[i];
                w.update_session_end(r);
            }
            if (status != RunStatus::running) w.end_run(status);
            w.finish();
        }
        StoreReader r(path);
        CHECK(r.run().status == status);
        auto sessions = r.sessions();
        REQUIRE(sessions.size() == ends.size());
        for (size_t i = 0; i < ends.size(); ++i) CHECK(sessions[i].end_reason == ends[i]);
    }
    // The schema itself refuses text outside its CHECK lists (not only the C++ parser).
    test::TempDir dir;
    const std::string path = dir.file("c.db");
    {
        auto w = StoreWriter::open(path);
        w.finish();
    }
    Db db(path, SQLITE_OPEN_READWRITE);
    CHECK_THROWS_AS(db.exec("INSERT INTO runs (id, plan_text, plan_path, tool_version, host, started_unix_ns,"
                            " mono_origin_ns, status) VALUES (1, '', '', '', '', 0, 0, 'exploded')", "check"),
                    StoreError);
    CHECK_NOTHROW(db.exec("INSERT INTO runs (id, plan_text, plan_path, tool_version, host, started_unix_ns,"
                          " mono_origin_ns, status) VALUES (1, '', '', '', '', 0, 0, 'aborted')", "check"));
}

TEST_CASE("store: verdict rows round-trip with their reasons, NaN figures and the run's max density") {
    test::TempDir dir;
    const std::string path = dir.file("verdicts.db");
    {
        auto w = StoreWriter::open(path);
        w.begin_run({.plan_text = "name = \"v\"", .plan_path = "", .tool_version = "t", .host = "h"});
        VerdictRow v;
        v.step_idx = 1;
        v.repeat = pooled_repeat;
        v.target_sessions = 4;
        v.t0_ns = 10;
        v.t1_ns = 20;
        v.judged_ns = 25;
        v.pass = false;
        v.sessions = 4;
        v.failures = 1;
        v.frames = 1234;
        v.dropped = 2;
        v.fps_median = 59.5;
        v.p95_median_ms = std::nan("");
        v.fairness = 0.987654321;
        v.reasons = {"1 session(s) failed (1 crash), 0 allowed", "session 2: p95 45.0 ms > 33.3 ms"};
        w.add_verdict(v);
        VerdictRow win = v;
        win.repeat = 0;
        win.pass = true;
        win.reasons.clear();
        w.add_verdict(win);
        w.end_run(RunStatus::finished, 0, 3);
        w.finish();
    }
    StoreReader r(path);
    auto rows = r.verdicts();
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].repeat == pooled_repeat);  // the pooled row sorts first
    CHECK(rows[0].step_idx == 1);
    CHECK_FALSE(rows[0].pass);
    CHECK(rows[0].frames == 1234);
    CHECK(rows[0].fps_median == 59.5);
    CHECK(std::isnan(rows[0].p95_median_ms));
    CHECK(rows[0].fairness == 0.987654321);  // exact: SQLite REAL is the same double
    CHECK(rows[0].reasons == std::vector<std::string>{"1 session(s) failed (1 crash), 0 allowed",
                                                      "session 2: p95 45.0 ms > 33.3 ms"});
    CHECK(rows[1].repeat == 0);
    CHECK(rows[1].pass);
    CHECK(rows[1].reasons.empty());
    CHECK(r.run().max_density == 3);
}
