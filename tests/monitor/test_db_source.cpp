// The monitor's .db source: the state at any moment of a finished run, rebuilt the
// way the orchestrator computes it live.
#include <doctest/doctest.h>

#include <cmath>

#include "common/errors.h"
#include "monitor/db_source.h"
#include "monitor/host_groups.h"
#include "store/merge.h"
#include "store/sqlite_handle.h"
#include "tests/monitor/synthetic_db.h"
#include "tests/support/mount.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::monitor;
using namespace seatmark::test;

namespace {
const core::LiveSession* find(const core::LiveState& s, uint32_t id) {
    for (const auto& x : s.sessions)
        if (x.id == id) return &x;
    return nullptr;
}
}  // namespace

TEST_CASE("a finished run, moment by moment") {
    TempDir dir;
    write_synthetic_db(dir.file("run.db"));
    DbSource src(dir.file("run.db"));
    CHECK(src.run_seconds() == doctest::Approx(21).epsilon(0.01));
    CHECK(src.has_time_slider());

    auto s = src.state_at(8);
    CHECK(s.plan == "synthetic");
    CHECK(s.status == "running");
    CHECK(s.step == 1);
    CHECK(s.steps == 2);
    CHECK(s.target == 1);
    CHECK(s.phase == "measuring");
    REQUIRE(s.sessions.size() == 1);
    CHECK(s.sessions[0].state == "running");
    CHECK(s.sessions[0].fps == doctest::Approx(1000 / 16.7).epsilon(0.05));
    CHECK(s.sessions[0].sla_ok);
    CHECK(s.sessions[0].cpu_pct == doctest::Approx(40));
    CHECK(s.host_cpu_pct == doctest::Approx(46));
    CHECK(s.finished_steps.empty());

    s = src.state_at(17);
    CHECK(s.step == 2);
    CHECK(s.target == 3);
    CHECK(s.alive == 2);
    REQUIRE(s.sessions.size() == 3);
    CHECK(find(s, 2)->state == "crash");
    CHECK(find(s, 1)->state == "running");
    CHECK_FALSE(find(s, 1)->sla_ok);  // 40 ms frames against a 33.3 ms p95 bound
    CHECK(find(s, 1)->p95_ms == doctest::Approx(40).epsilon(0.01));
    REQUIRE(s.finished_steps.size() == 1);
    CHECK(s.finished_steps[0].pass);
    CHECK(s.max_density_so_far == 1);
    CHECK(s.finished_steps[0].fps_median == doctest::Approx(1000 / 16.7).epsilon(0.05));

    s = src.state_at(src.run_seconds());
    CHECK(s.status == "finished");
    CHECK(s.alive == 0);
    REQUIRE(s.finished_steps.size() == 2);
    CHECK_FALSE(s.finished_steps[1].pass);
    CHECK(s.max_density_so_far == 1);

    // The snapshot: bands with verdicts, events so far, history, the selected session's frames.
    auto d = src.snapshot();
    CHECK(d->link == Link::file);
    REQUIRE(d->bands.size() == 2);
    CHECK(d->bands[0].verdict == 1);
    CHECK(d->bands[1].verdict == 0);
    CHECK(d->bands[1].window_t0_s == doctest::Approx(14));
    CHECK(d->sla_p95_ms == doctest::Approx(33.3));
    CHECK(d->history.size() > 15);
    for (size_t i = 1; i < d->history.size(); ++i) CHECK(d->history[i].t_s > d->history[i - 1].t_s);
    CHECK(d->t_now_s == doctest::Approx(19.25).epsilon(0.01));  // opens at the end of the last window
    src.set_time(12);
    d = src.snapshot();
    CHECK(d->t_now_s == doctest::Approx(12));
    for (const auto& e : d->events) CHECK(e.t_s <= 12.0001);
    bool crash_seen = false;
    src.set_time(21);
    for (const auto& e : src.snapshot()->events) crash_seen = crash_seen || (e.kind == "session-crash" && e.bad);
    CHECK(crash_seen);
    CHECK_FALSE(src.snapshot()->frames);
    src.select_session(1);
    auto f = src.snapshot()->frames;
    REQUIRE(f);
    CHECK(f->session == 1);
    CHECK(f->t_s.size() > 200);
    CHECK(f->t_s.front() == doctest::Approx(10.3));
    CHECK(std::isnan(f->interval_ms.front()));  // a stretch's first frame has no interval
}

TEST_CASE("a finished run's RDP endpoint figures, moment by moment, as the live API showed them") {
    TempDir dir;
    write_synthetic_db(dir.file("run.db"), "testhost", std::nullopt, "", true);
    DbSource src(dir.file("run.db"));
    auto s = src.state_at(8);
    REQUIRE(s.sessions.size() == 1);
    REQUIRE(s.sessions[0].endpoint);
    const auto& e = *s.sessions[0].endpoint;
    CHECK(e.user == "u1");
    CHECK(e.launcher == "lab-a");
    CHECK(e.codec == "remotefx");
    CHECK(e.fault == "none");  // the logon ends (logged off) only at 20.5 s
    CHECK(e.logon_ms == doctest::Approx(1500));
    CHECK(e.fps == doctest::Approx(s.sessions[0].fps / 2).epsilon(0.08));  // every second frame arrived
    CHECK(e.delivered_ratio == doctest::Approx(0.5).epsilon(0.05));
    CHECK(e.latency_p95_ms == doctest::Approx(20).epsilon(0.01));
    CHECK(e.ssim_mean == doctest::Approx(0.95));
    const uint64_t by8 = e.arrivals;
    CHECK(by8 > 100);
    auto later = src.state_at(18);
    REQUIRE(later.sessions.size() == 3);
    CHECK(find(later, 0)->endpoint->arrivals > by8);  // counted up to the moment, not the whole file
    CHECK_FALSE(find(later, 1)->endpoint);             // no launcher carried it
    CHECK(src.state_at(21).sessions[0].endpoint->fault == "logged-off");
}

TEST_CASE("figures a file holds that no run writes (a negative memory size) are shown as unknown, not converted") {
    TempDir dir;
    write_synthetic_db(dir.file("run.db"));
    {
        // The fuzz target found this: rss -12 became an undefined float-to-unsigned conversion.
        store::Db db(dir.file("run.db"), SQLITE_OPEN_READWRITE);
        db.exec("UPDATE samples SET value = -12 WHERE metric = 'rss_bytes'; UPDATE samples SET value = 1e300 WHERE metric = 'cpu_pct'", "corrupting the test file");
    }
    DbSource src(dir.file("run.db"));
    auto s = src.state_at(8);
    REQUIRE(s.sessions.size() == 1);
    CHECK(!s.sessions[0].rss_bytes);  // unknown, not 0
}

TEST_CASE("stamps at the ends of the 64-bit range are shown, not overflowed") {
    // fuzz_store found this: an event at ~2^63 ns made the state's moment origin + 9.2e18 ns,
    // a signed overflow; stamps on both sides of the origin also overflowed their differences.
    TempDir dir;
    write_synthetic_db(dir.file("run.db"));
    {
        store::Db db(dir.file("run.db"), SQLITE_OPEN_READWRITE);
        db.exec("UPDATE events SET t_ns = 9223372036854775807 WHERE rowid = (SELECT MIN(rowid) FROM events);"
                "UPDATE runs SET mono_origin_ns = -9223372036854775807, ended_unix_ns = 9223372036854775807,"
                " started_unix_ns = -9223372036854775807", "corrupting the test file");
    }
    DbSource src(dir.file("run.db"));
    // From -(2^63 - 1) to 2^63 - 1 ns: 1.8e10 s (a 64-bit difference wrapped to -2 ns, shown as 0).
    CHECK(src.run_seconds() == doctest::Approx(18446744073.709553).epsilon(1e-9));
    const auto end = src.state_at(1e30);  // beyond any stamp: held at the last one
    CHECK(end.status != "running");
    const auto start = src.state_at(0);
    CHECK(start.elapsed_s == 0);
}

TEST_CASE("a file that is not a run database is a clear error") {
    TempDir dir;
    write_file(dir.file("x.db"), "not sqlite at all, just text that is long enough to look like something");
    CHECK_THROWS_AS(DbSource(dir.file("x.db")), InputError);
    CHECK_THROWS_AS(DbSource(dir.file("missing.db")), InputError);
}

TEST_CASE("a finished run on a read-only mount opens in the monitor") {
    TempDir dir;
    Mount m = loop_ext2(dir.file("fs.img"), 16, dir.file("fs"));
    if (!m.ok) SEATMARK_SKIP("cannot loop-mount a file system here (" << m.why << ")");
    write_synthetic_db(dir.file("fs/run.db"));
    REQUIRE(m.remount(true));
    DbSource src(dir.file("fs/run.db"));
    CHECK(src.run_seconds() == doctest::Approx(21).epsilon(0.01));
}

TEST_CASE("a merged pool database: sessions carry their host, the hosts are listed, the grid groups by host") {
    TempDir dir;
    write_synthetic_db(dir.file("h0.db"), "h0", 0, "pool-m");
    write_synthetic_db(dir.file("h1.db"), "h1", 1, "pool-m");
    store::merge_databases(dir.file("pool.db"), {dir.file("h0.db"), dir.file("h1.db")});
    DbSource src(dir.file("pool.db"));
    auto s = src.state_at(17);
    REQUIRE(s.sessions.size() == 6);
    REQUIRE(s.hosts.size() == 2);
    CHECK(s.hosts[0].name == "h0");
    CHECK(s.hosts[1].rank == 1);
    CHECK(s.hosts[1].sessions_running == 2);
    const auto groups = monitor::group_by_host(s);
    REQUIRE(groups.size() == 2);
    CHECK(groups[1].name == "h1");
    CHECK(groups[1].sessions.size() == 3);
    CHECK(groups[1].failed == 1);
    for (size_t i : groups[1].sessions) CHECK(s.sessions[i].host == "h1");
    CHECK(s.host_cpu_pct == doctest::Approx(64));  // rank 0's own host (both hosts sample alike here)
}

TEST_CASE("a pool's events name their host, and a failed step's verdict event is red whenever it was judged") {
    // Issue 29: a failing pool step-verdict row was green (the monitor matched it to a verdict row
    // by time stamp, and the pool votes later than a host's row), and pool events had no host.
    TempDir dir;
    write_synthetic_db(dir.file("h0.db"), "h0", 0, "pool-e");
    write_synthetic_db(dir.file("h1.db"), "h1", 1, "pool-e");
    for (const char* f : {"h0.db", "h1.db"}) {
        store::Db db(dir.file(f), SQLITE_OPEN_READWRITE);
        db.exec("UPDATE events SET t_ns = t_ns + 700000000 WHERE kind = 'step-verdict'", "moving the pool's votes");
    }
    store::merge_databases(dir.file("pool.db"), {dir.file("h0.db"), dir.file("h1.db")});
    DbSource src(dir.file("pool.db"));
    src.set_time(src.run_seconds());
    const auto d = src.snapshot();
    size_t verdicts = 0, failed = 0, crashes_named = 0;
    for (const auto& e : d->events) {
        if (e.kind == "step-verdict") {
            ++verdicts;
            // synthetic_db: step 1 passes, step 2 (3 sessions) fails on every host.
            const bool step2 = e.text.find("step 2 (3 sessions): fail") != std::string::npos;
            CHECK(e.bad == step2);
            CHECK(e.cls == (step2 ? EventClass::step_fail : EventClass::step_pass));
            failed += step2;
        }
        if (e.kind == "session-crash") {
            CHECK(e.cls == EventClass::session_failure);
            // The merge renumbers h1's sessions after h0's: the host tells them apart.
            crashes_named += e.text.starts_with("h0: session ") || e.text.starts_with("h1: session ");
        }
    }
    CHECK(verdicts == 4);
    CHECK(failed == 2);
    CHECK(crashes_named == 2);
    CHECK(events_summary(d->events).find("2 failed steps, 2 session failures") != std::string::npos);
}
