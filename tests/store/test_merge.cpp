// `seatmark merge` on real SQLite files: the merged database is the union of the host
// databases (row counts and sums per host), stamps moved by each host's clock offset, session
// numbers kept or shifted, verdicts kept per host and the pool's added; mismatched inputs refused.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <tuple>
#include <string>

#include "common/errors.h"
#include "store/merge.h"
#include "store/merge_copy.h"
#include "store/sqlite_handle.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::store;

namespace {

struct HostDb {
    std::string host;
    int rank = 0;
    int first_session = 0;  // session numbers first_session, first_session + 1
    int64_t t0 = 0;         // its clock at the run's start
    bool pass = true;
    std::string plan = "name = \"pool\"";
    std::string pool_id = "pool-1";
    std::vector<HostInfo> others;  // rows for the other hosts (offsets into this file's time base)
    bool pool_rows = false;        // also the pool's '' rows (rank 0 of a live pool run)
    bool endpoint = false;         // RDP launcher rows: logons 1 (carries first_session) and 2 (failed)
};

void make_host_db(const std::string& path, const HostDb& h) {
    StoreWriter w = StoreWriter::open(path);
    w.begin_run({.plan_text = h.plan, .plan_path = "", .tool_version = "t", .host = h.host, .pool_id = h.pool_id});
    w.add_host({.hostname = h.host, .cpu_model = "cpu-" + h.host, .rank = h.rank,
                .role = std::string(h.rank == 0 ? role_orchestrator : role_rank)});
    for (const HostInfo& o : h.others) w.add_host(o);
    w.begin_step({.idx = 0, .repeat = 0, .target_sessions = 4, .started_ns = h.t0});
    for (int s = h.first_session; s < h.first_session + 2; ++s) {
        w.add_session({.id = s, .profile = "p", .pid = 100 + s, .device = {}, .started_ns = h.t0 + 1});
        std::vector<FrameRecord> frames(50);
        for (size_t i = 0; i < frames.size(); ++i) {
            frames[i].seq = i;
            frames[i].t_begin_ns = h.t0 + 1000 + int64_t(i) * 16'000'000;
            frames[i].t_present_ns = frames[i].t_begin_ns + 5;
            frames[i].cpu_ns = 7 + s;
            frames[i].interval_ns = 16'000'000;
        }
        w.add_frames(s, std::move(frames));
        w.add_sample({.t_ns = h.t0 + 2, .session_id = s, .source = "proc", .metric = "cpu_pct", .value = 10.0 + s});
        w.update_session_end({.id = s, .ended_ns = h.t0 + 2'000'000'000, .reason = SessionEnd::ok});
    }
    if (h.endpoint) {
        EndpointLogonRow ok{.id = 1, .launcher = "l-" + h.host, .rdp_host = h.host + ":3389", .host = h.host,
                            .user = "u1", .session_id = h.first_session, .connect_ns = h.t0 + 7, .logon_ms = 900.0,
                            .ended_ns = h.t0 + 1'900'000'000, .codec = "remotefx", .payload_bytes = 4096};
        ok.figures.rendered = 50;
        ok.figures.arrivals = 3;
        ok.figures.delivered_ratio = 0.06;
        w.add_endpoint_logon(ok);
        EndpointLogonRow bad{.id = 2, .launcher = "l-" + h.host, .rdp_host = h.host + ":3389", .host = h.host,
                             .user = "u2", .connect_ns = h.t0 + 8, .fault = "logon", .fault_detail = "wrong password"};
        w.add_endpoint_logon(bad);
        w.add_endpoint_batch({h.first_session, {{1, h.t0 + 1100}, {2, h.t0 + 1200}, {4, h.t0 + 1400}}, {{2, 0.9}}});
    }
    w.add_sample({.t_ns = h.t0 + 3, .session_id = {}, .source = "proc", .metric = "host_cpu_pct", .value = 50});
    w.add_event({.t_ns = h.t0 + 4, .session_id = {}, .kind = "step-begin", .detail = "0"});
    w.end_step({.idx = 0, .repeat = 0, .window_start_ns = h.t0 + 10, .window_end_ns = h.t0 + 20, .ended_ns = h.t0 + 30,
                .verdict = h.pass ? "pass" : "fail", .detail = ""});
    for (int rep : {0, -1}) {
        VerdictRow v{.host = h.pool_rows ? h.host : "", .step_idx = 0, .repeat = rep, .target_sessions = 2,
                     .t0_ns = h.t0 + 10, .t1_ns = h.t0 + 20, .judged_ns = h.t0 + 25, .pass = h.pass, .sessions = 2,
                     .failures = 0, .frames = 100, .dropped = 0, .fps_median = 60, .fps_min = 59, .fps_max = 61};
        if (!h.pass) v.reasons = {"session " + std::to_string(h.first_session) + ": p95 50 ms > 33.3 ms"};
        w.add_verdict(v);
        if (h.pool_rows) {
            v.host = "";
            v.target_sessions = 4;
            v.reasons = {"live pool row"};
            w.add_verdict(v);
        }
    }
    w.end_run(RunStatus::finished, 0, h.pass ? 2 : 0);
    w.finish();
}

int64_t scalar(const std::string& db, const std::string& sql) {
    Db d(db, SQLITE_OPEN_READONLY);
    Stmt s(d, sql);
    return s.step() ? s.col_int(0) : -1;
}

std::string merge_error(const std::string& out, const std::vector<std::string>& in) {
    try {
        merge_databases(out, in);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("merge: the merged database is the union of the host databases, in rank 0's time base") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db"), out = dir.file("pool.db");
    // b's clock runs 5 s ahead of a's: b's offset into a's time base is -5 s, as a recorded it.
    const int64_t off_b = -5'000'000'000;
    make_host_db(a, {.host = "a", .rank = 0, .first_session = 0, .t0 = 1'000'000'000,
                     .others = {{.hostname = "b", .rank = 1, .role = std::string(role_rank), .clock_offset_ns = off_b,
                                 .clock_uncertainty_ns = 900}}});
    make_host_db(b, {.host = "b", .rank = 1, .first_session = 100000, .t0 = 6'000'000'500, .pass = false,
                     .others = {{.hostname = "a", .rank = 0, .clock_offset_ns = -off_b, .clock_uncertainty_ns = 900}}});
    // Given in any order: rank 0's file is the reference.
    MergeResult r = merge_databases(out, {b, a});
    CHECK(r.reference == "a");
    REQUIRE(r.hosts.size() == 2);
    CHECK(r.hosts[0].hostname == "a");
    CHECK(r.hosts[1].clock_offset_ns == off_b);
    CHECK(r.hosts[1].offset_known);
    CHECK(r.hosts[1].session_id_shift == 0);  // numbers unique over the pool: kept
    CHECK(r.status == RunStatus::finished);
    CHECK(r.pool_verdicts_combined);
    CHECK(r.max_density == 0);  // b failed the only step

    // Row counts and sums per host equal the inputs'.
    for (const auto& [host, file, off] : {std::tuple{std::string("a"), a, int64_t(0)}, std::tuple{std::string("b"), b, off_b}}) {
        const std::string& host_name = host;  // doctest's CAPTURE is a lambda: clang 14 cannot capture a binding
        CAPTURE(host_name);
        const std::string q = " FROM frames WHERE session_id IN (SELECT id FROM sessions WHERE host = '" + host + "')";
        CHECK(scalar(out, "SELECT count(*)" + q) == scalar(file, "SELECT count(*) FROM frames"));
        CHECK(scalar(out, "SELECT sum(cpu_ns)" + q) == scalar(file, "SELECT sum(cpu_ns) FROM frames"));
        CHECK(scalar(out, "SELECT sum(t_begin_ns)" + q) ==
              scalar(file, "SELECT sum(t_begin_ns) FROM frames") + 100 * off);
        CHECK(scalar(out, "SELECT sum(t_present_ns)" + q) ==
              scalar(file, "SELECT sum(t_present_ns) FROM frames") + 100 * off);
        CHECK(scalar(out, "SELECT count(*) FROM sessions WHERE host = '" + host + "'") == 2);
        CHECK(scalar(out, "SELECT count(*) FROM samples WHERE host = '" + host + "'") == 3);
        CHECK(scalar(out, "SELECT sum(t_ns) FROM samples WHERE host = '" + host + "'") ==
              scalar(file, "SELECT sum(t_ns) FROM samples") + 3 * off);
        CHECK(scalar(out, "SELECT count(*) FROM events WHERE host = '" + host + "'") == 1);
        CHECK(scalar(out, "SELECT count(*) FROM verdicts WHERE host = '" + host + "'") == 2);
    }
    StoreReader m(out);
    CHECK(m.run().host == "a");
    CHECK(m.run().pool_id == "pool-1");
    CHECK(m.integrity_ok());
    auto hosts = m.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[1].hostname == "b");
    CHECK(hosts[1].role == "rank");
    CHECK(hosts[1].clock_offset_ns == off_b);
    CHECK(hosts[1].clock_uncertainty_ns == 900);
    // b's session started 1 ns after b's t0, which is 500 ns after a's in a's time base.
    auto sessions = m.sessions();
    REQUIRE(sessions.size() == 4);
    CHECK(sessions[2].id == 100000);
    CHECK(sessions[2].started_ns == 1'000'000'501);
    // Steps are run-wide: the reference's.
    CHECK(m.steps().size() == 1);
    CHECK(m.steps()[0].started_ns == 1'000'000'000);
    CHECK(m.steps()[0].target_sessions == 8);  // 4 on each host
    // The pool's verdict fails because host b failed, naming it.
    auto pool = m.verdicts();
    REQUIRE(pool.size() == 2);
    CHECK_FALSE(pool[0].pass);
    CHECK(pool[0].target_sessions == 4);
    CHECK(pool[0].sessions == 4);
    CHECK(pool[0].frames == 200);
    CHECK(pool[0].reasons == std::vector<std::string>{"b: session 100000: p95 50 ms > 33.3 ms"});
    CHECK(std::isnan(pool[0].fps_median));  // not known from the hosts' rows alone
    CHECK(m.host_verdicts("a").at(0).pass);
    CHECK_FALSE(m.host_verdicts("b").at(0).pass);
    CHECK(m.run().max_density == 0);
}

TEST_CASE("merge: colliding session numbers are shifted, files without offsets keep their stamps") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db"), out = dir.file("m.db");
    make_host_db(a, {.host = "a", .rank = 0, .first_session = 0, .t0 = 100});
    make_host_db(b, {.host = "b", .rank = 1, .first_session = 0, .t0 = 200});
    MergeResult r = merge_databases(out, {a, b});
    CHECK(r.hosts[1].session_id_shift == 2);
    CHECK_FALSE(r.hosts[1].offset_known);
    CHECK(r.max_density == 4);  // both hosts passed: the pool passed its 4 sessions
    StoreReader m(out);
    auto s = m.sessions();
    REQUIRE(s.size() == 4);
    CHECK(s[2].id == 2);
    CHECK(s[2].host == "b");
    CHECK(s[2].started_ns == 201);
    CHECK(m.frame_count(2) == 50);
    CHECK(m.samples({.session_id = 3}).at(0).host == "b");
}

TEST_CASE("merge: a host's verdict reasons name its sessions by their merged numbers, as the report's recompute does") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db"), out = dir.file("m.db");
    make_host_db(a, {.host = "a", .rank = 0, .first_session = 0, .t0 = 100});
    make_host_db(b, {.host = "b", .rank = 1, .first_session = 0, .t0 = 200, .pass = false});
    MergeResult r = merge_databases(out, {a, b});
    REQUIRE(r.hosts[1].session_id_shift == 2);
    StoreReader m(out);
    // b's own file said "session 0"; its session 0 is session 2 of the merged file.
    CHECK(m.host_verdicts("b").at(0).reasons == std::vector<std::string>{"session 2: p95 50 ms > 33.3 ms"});
    CHECK(m.verdicts().at(0).reasons == std::vector<std::string>{"b: session 2: p95 50 ms > 33.3 ms"});
}

TEST_CASE("merge: endpoint logons, arrivals and SSIM samples are copied, moved and renumbered") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db"), c = dir.file("c.db"), out = dir.file("m.db");
    const int64_t off_b = -5'000'000'000;
    make_host_db(a, {.host = "a", .rank = 0, .first_session = 0, .t0 = 1'000'000'000,
                     .others = {{.hostname = "b", .rank = 1, .role = std::string(role_rank), .clock_offset_ns = off_b,
                                 .clock_uncertainty_ns = 900},
                                {.hostname = "c", .rank = 2, .role = std::string(role_rank)}},
                     .endpoint = true});
    // b's session numbers collide with a's (shifted by 2) and its clock is 5 s ahead.
    make_host_db(b, {.host = "b", .rank = 1, .first_session = 0, .t0 = 6'000'000'000, .endpoint = true});
    make_host_db(c, {.host = "c", .rank = 2, .first_session = 10, .t0 = 1'000'000'000});  // no launcher rows
    MergeResult r = merge_databases(out, {a, b, c});
    REQUIRE(r.hosts.size() == 3);
    CHECK(r.hosts[1].session_id_shift == 2);
    StoreReader m(out);
    CHECK(m.integrity_ok());
    const auto logons = m.endpoint_logons();
    REQUIRE(logons.size() == 4);
    // a's keep their numbers; b's follow a's highest.
    CHECK(logons[0].id == 1);
    CHECK(logons[0].session_id == 0);
    CHECK(logons[0].connect_ns == 1'000'000'007);
    CHECK(logons[0].ended_ns == 2'900'000'000);
    CHECK(logons[0].codec == "remotefx");
    CHECK(logons[0].figures.arrivals == 3);
    CHECK(logons[0].figures.delivered_ratio == doctest::Approx(0.06));
    CHECK(logons[2].id == 3);
    CHECK(logons[2].launcher == "l-b");
    CHECK(logons[2].session_id == 2);                     // b's session 0, shifted
    CHECK(logons[2].connect_ns == 1'000'000'007);         // b's t0 + 7 in a's time base
    CHECK(*logons[2].logon_ms == doctest::Approx(900));
    CHECK(logons[3].id == 4);
    CHECK(logons[3].fault == "logon");
    CHECK(logons[3].fault_detail == "wrong password");
    CHECK_FALSE(logons[3].session_id);                    // NULL stays NULL
    CHECK_FALSE(logons[3].ended_ns);
    const auto series = m.endpoint_series();
    REQUIRE(series.size() == 2);
    REQUIRE(series.at(2).arrivals.size() == 3);
    CHECK(series.at(2).arrivals[0].arrival_ns == 1'000'001'100);
    CHECK(series.at(2).arrivals[2].seq == 4);
    REQUIRE(series.at(2).ssim.size() == 1);
    CHECK(series.at(2).ssim[0].ssim == doctest::Approx(0.9));
    CHECK(series.at(0).arrivals.at(1).arrival_ns == 1'000'001'200);
    CHECK(scalar(out, "SELECT count(*) FROM endpoint_ssim") == 2);
    // Every arrival names a merged frame of its session.
    CHECK(scalar(out, "SELECT count(*) FROM endpoint_arrivals a LEFT JOIN frames f ON f.session_id = a.session_id AND"
                      " f.seq = a.seq WHERE f.seq IS NULL") == 0);
}

TEST_CASE("merge: the pool's live verdict rows of rank 0 are kept") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db"), out = dir.file("m.db");
    make_host_db(a, {.host = "a", .rank = 0, .first_session = 0, .t0 = 100, .pool_rows = true});
    make_host_db(b, {.host = "b", .rank = 1, .first_session = 10, .t0 = 100, .pool_rows = true});
    MergeResult r = merge_databases(out, {a, b});
    CHECK_FALSE(r.pool_verdicts_combined);
    StoreReader m(out);
    CHECK(m.verdicts().at(0).reasons == std::vector<std::string>{"live pool row"});
    CHECK(m.host_verdicts("b").size() == 2);
    CHECK(m.all_verdicts().size() == 6);
}

TEST_CASE("merge: a host the survivors recorded as lost makes the run degraded") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), out = dir.file("m.db");
    make_host_db(a, {.host = "a", .rank = 0, .t0 = 100,
                     .others = {{.hostname = "b", .rank = 1, .role = std::string(role_rank), .lost = true,
                                 .lost_step = 0, .lost_detail = "no answer within 5 s at window close"}}});
    MergeResult r = merge_databases(out, {a});
    CHECK(r.status == RunStatus::degraded);
    REQUIRE(r.hosts.size() == 2);
    CHECK(r.hosts[1].lost);
    CHECK(r.hosts[1].file.empty());
    StoreReader m(out);
    CHECK(m.run().status == RunStatus::degraded);
    auto h = m.hosts();
    REQUIRE(h.size() == 2);
    CHECK(h[1].lost);
    CHECK(h[1].lost_step == 0);
    CHECK(h[1].lost_detail == "no answer within 5 s at window close");
    auto pool = m.verdicts();
    REQUIRE_FALSE(pool.empty());
    CHECK_FALSE(pool[0].pass);
    CHECK(pool[0].reasons.back() == "b: lost before this span was judged");
}

TEST_CASE("merge: refuses files of different runs, a host twice, and an existing output") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db"), c = dir.file("c.db"), d = dir.file("d.db");
    make_host_db(a, {.host = "a", .rank = 0});
    make_host_db(b, {.host = "b", .rank = 1, .plan = "name = \"other\""});
    make_host_db(c, {.host = "a", .rank = 1});
    make_host_db(d, {.host = "d", .rank = 1, .pool_id = "pool-2"});
    std::string e = merge_error(dir.file("o1.db"), {a, b});
    CHECK(e.find("b.db: its run plan differs from") != std::string::npos);
    CHECK(e.find("not the host databases of one run") != std::string::npos);
    e = merge_error(dir.file("o2.db"), {a, c});
    CHECK(e.find("both record host 'a'") != std::string::npos);
    e = merge_error(dir.file("o3.db"), {a, d});
    CHECK(e.find("d.db: belongs to pool run 'pool-2'") != std::string::npos);
    e = merge_error(a, {a});
    CHECK(e.find("is also an input") != std::string::npos);
    e = merge_error(dir.file("o4.db"), {a, a});
    CHECK(e.find("given twice") != std::string::npos);
    // An existing file that no merge here has read (b.db was an input above: refused as one).
    test::write_file(dir.file("e.db"), "not to be replaced");
    e = merge_error(dir.file("e.db"), {a});
    CHECK(e.find("e.db exists; choose another output or pass --force") != std::string::npos);
    e = merge_error(b, {a});
    CHECK(e.find("b.db: is one of this command's inputs") != std::string::npos);
    e = merge_error(dir.file("o5.db"), {dir.file("missing.db")});
    CHECK(e.find("missing.db") != std::string::npos);
    // Nothing was left behind by the refusals.
    for (const char* o : {"o1.db", "o2.db", "o3.db", "o4.db", "o5.db"}) CHECK_FALSE(std::filesystem::exists(dir.file(o)));
}

TEST_CASE("merge: a merge killed half-way leaves nothing under the output's name, and the next one replaces its leftovers") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db"), out = dir.file("pool.db");
    make_host_db(a, {.host = "a", .rank = 0});
    make_host_db(b, {.host = "b", .rank = 1, .first_session = 10, .t0 = 5000});
    // A real process, killed at the last step before the merge would be complete (every row
    // copied, the indexes about to be built).
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        MergeOptions o;
        o.progress = [](const std::string& line) {
            if (line.starts_with("building indexes")) ::raise(SIGKILL);
        };
        try {
            merge_databases(out, {a, b}, o);
        } catch (...) {
        }
        ::_exit(3);  // not killed: the test fails below
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK(std::filesystem::exists(out + ".partial"));

    // While a merge writes it, its partial file is not taken from it.
    {
        MergeWriter running(dir.file("busy.db"));
        CHECK(merge_error(dir.file("busy.db"), {a, b}).find("busy.db.partial is being written by a running seatmark merge") !=
              std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir.file("busy.db.partial")));  // removed: never committed

    // The killed merge's leftovers are replaced; the output appears whole, under its name only.
    MergeResult r = merge_databases(out, {a, b});
    CHECK(r.hosts.size() == 2);
    CHECK(std::filesystem::exists(out));
    for (const char* suffix : {".partial", ".partial-wal", ".partial-shm"}) CHECK_FALSE(std::filesystem::exists(out + suffix));
    CHECK(scalar(out, "SELECT COUNT(*) FROM sessions") == 4);
    StoreReader rd(out);
    CHECK(rd.effective_status() == RunStatus::finished);
}

namespace {

// A host of a scaling series [1, 2]: step 0 on one host (this one's share `first`), step 1 on two.
void make_series_db(const std::string& path, const std::string& host, int rank, int first, const std::vector<HostInfo>& others) {
    StoreWriter w = StoreWriter::open(path);
    w.begin_run({.plan_text = "name = \"series\"", .plan_path = "", .tool_version = "t", .host = host, .pool_id = "s-1"});
    w.add_host({.hostname = host, .rank = rank, .role = std::string(rank == 0 ? role_orchestrator : role_rank)});
    for (const HostInfo& o : others) w.add_host(o);
    const int share[2] = {first, 1};
    for (int idx = 0; idx < 2; ++idx) {
        w.begin_step({.idx = idx, .repeat = 0, .target_sessions = share[idx], .started_ns = 1000 * idx, .pool_hosts = idx + 1});
        w.end_step({.idx = idx, .repeat = 0, .window_start_ns = 1000 * idx + 10, .window_end_ns = 1000 * idx + 20,
                    .ended_ns = 1000 * idx + 30, .verdict = "pass", .detail = ""});
        if (share[idx] == 0) continue;  // idle in the step: no verdict of its own
        for (int rep : {0, -1})
            w.add_verdict({.host = "", .step_idx = idx, .repeat = rep, .target_sessions = share[idx], .t0_ns = 1000 * idx + 10,
                           .t1_ns = 1000 * idx + 20, .judged_ns = 1000 * idx + 25, .pass = true, .sessions = share[idx]});
    }
    w.end_run(RunStatus::finished, 0, 2);
    w.finish();
}

}  // namespace

TEST_CASE("merge: scaling rows from the steps' pool sizes, and a listed host without a database is lost") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db");
    make_series_db(a, "a", 0, 2, {{.hostname = "b", .rank = 1, .role = std::string(role_rank)}});
    make_series_db(b, "b", 1, 0, {{.hostname = "a", .rank = 0, .role = std::string(role_orchestrator)}});
    MergeResult r = merge_databases(dir.file("m.db"), {a, b});
    CHECK(r.status == RunStatus::finished);
    StoreReader m(dir.file("m.db"));
    auto steps = m.steps();
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].pool_hosts == 1);
    CHECK(steps[1].pool_hosts == 2);
    CHECK(steps[0].target_sessions == 2);  // a's 2 + idle b's 0
    CHECK(steps[1].target_sessions == 2);  // 1 + 1
    CHECK(m.host_verdicts("b").size() == 2);  // step 1 only
    auto sc = m.scaling();
    REQUIRE(sc.size() == 2);
    CHECK(sc[0].hosts == 1);
    CHECK(sc[0].max_sessions == 2);
    CHECK(sc[0].efficiency == doctest::Approx(1.0));
    CHECK(sc[1].hosts == 2);
    CHECK(sc[1].max_sessions == 2);
    CHECK(sc[1].efficiency == doctest::Approx(0.5));  // 2 / (2 x 2)
    CHECK(sc[1].complete);
    CHECK(m.run().max_density == 2);

    // Only a's file: b is listed (ok) by a but has no database among the inputs -> lost.
    r = merge_databases(dir.file("alone.db"), {a});
    CHECK(r.status == RunStatus::degraded);
    StoreReader alone(dir.file("alone.db"));
    auto h = alone.hosts();
    REQUIRE(h.size() == 2);
    CHECK(h[1].hostname == "b");
    CHECK(h[1].lost);
    CHECK(h[1].lost_step == 1);
    REQUIRE(h[1].lost_detail);
    CHECK(h[1].lost_detail->find("no database of it among the merge's inputs") != std::string::npos);
    auto sa = alone.scaling();
    REQUIRE(sa.size() == 2);
    CHECK(sa[0].complete);       // one host: b took no part
    CHECK(sa[0].max_sessions == 2);  // ... so its loss does not fail the 1-host ramp
    CHECK_FALSE(sa[1].complete);  // b's half is missing
    CHECK(sa[1].max_sessions == 0);  // the 2-host step: lost before it was judged
}

TEST_CASE("merge: a listed host's missing database is explained when the caller knows why") {
    test::TempDir dir;
    const std::string a = dir.file("a.db");
    make_series_db(a, "a", 0, 2, {{.hostname = "b", .rank = 1, .role = std::string(role_rank)}});
    MergeOptions o;
    o.missing_detail["b"] = "its database did not reach rank 0 (no chunk came for 30 s); b keeps it at /x/run.b.db";
    CHECK(merge_databases(dir.file("m.db"), {a}, o).status == RunStatus::degraded);
    auto h = StoreReader(dir.file("m.db")).hosts();
    REQUIRE(h.size() == 2);
    CHECK(h[1].lost);
    REQUIRE(h[1].lost_detail);
    CHECK(*h[1].lost_detail ==
          "no database of it among the merge's inputs: its database did not reach rank 0 (no chunk came for 30 s); b "
          "keeps it at /x/run.b.db");
}
