// `seatmark merge` and a killed rank's own file (its writer died; the survivor's run ended): the
// host is lost in the step its file ends in, or in the next one when its file holds its verdict
// of the last step it began (killed between steps). Known by construction from the rows written.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "store/merge.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::store;

namespace {

// One host's file of a 2-rank pool: steps 0..last begun, the pooled verdict of each step in
// `judged`; `killed`: the writer dies (a child process exits without finishing).
void write_host(const std::string& path, const std::string& host, int rank, int last, int judged, bool killed) {
    auto body = [&] {
        StoreWriter w = StoreWriter::open(path);
        w.begin_run({.plan_text = "name = \"p\"", .plan_path = "", .tool_version = "t", .host = host, .pool_id = "k-1"});
        w.add_host({.hostname = host, .rank = rank, .role = std::string(rank == 0 ? role_orchestrator : role_rank)});
        w.add_host({.hostname = rank == 0 ? "h1" : "h0", .rank = 1 - rank,
                    .role = std::string(rank == 0 ? role_rank : role_orchestrator)});
        for (int s = 0; s <= last; ++s) {
            const int64_t t = 1'000'000'000LL * (10 * s + 1);
            w.add_event({.t_ns = t, .session_id = {}, .kind = "step-begin", .detail = std::to_string(s)});
            w.add_sample({.t_ns = t + 500'000'000, .session_id = {}, .source = "proc", .metric = "host_cpu_pct", .value = 5});
            if (s > judged) continue;
            w.begin_step({.idx = s, .repeat = 0, .target_sessions = 1, .started_ns = t});
            w.end_step({.idx = s, .repeat = 0, .window_start_ns = t + 1, .window_end_ns = t + 2, .ended_ns = t + 3,
                        .verdict = "pass", .detail = ""});
            for (int rep : {0, -1})
                w.add_verdict({.host = "", .step_idx = s, .repeat = rep, .target_sessions = 1, .t0_ns = t + 1,
                               .t1_ns = t + 2, .judged_ns = t + 3, .pass = true, .sessions = 1});
        }
        if (killed) {
            w.flush();
            ::_exit(0);  // the writer dies with the process
        }
        w.end_run(RunStatus::aborted, 0, 1);
        w.finish();
    };
    if (!killed) return body();
    pid_t pid = ::fork();
    if (pid == 0) body();
    int status = 0;
    ::waitpid(pid, &status, 0);
}

}  // namespace

TEST_CASE("merge lost: a killed rank's own file marks it crashed, lost in the step its file ends in") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db");
    write_host(a, "h0", 0, 1, 0, false);  // the survivor: step 1 begun, stopped by the launcher
    write_host(b, "h1", 1, 1, 0, true);   // killed in step 1 (idx 1), after judging step 0
    const MergeResult m = merge_databases(dir.file("m.db"), {a, b});
    CHECK(m.status == RunStatus::degraded);
    const auto hosts = StoreReader(dir.file("m.db")).hosts();
    REQUIRE(hosts.size() == 2);
    CHECK_FALSE(hosts[0].lost);
    CHECK(hosts[1].lost);
    CHECK(hosts[1].lost_step == 1);
    REQUIRE(hosts[1].lost_detail);
    CHECK(hosts[1].lost_detail->starts_with("crashed: its database (" + b + ") ends 10.5 s after it began, in step 2"));
}

TEST_CASE("merge lost: a rank killed after judging its last step, before the next began, is lost in the next") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db");
    write_host(a, "h0", 0, 1, 0, false);
    write_host(b, "h1", 1, 0, 0, true);  // its file ends after step 0's verdict
    merge_databases(dir.file("m.db"), {a, b});
    const auto hosts = StoreReader(dir.file("m.db")).hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[1].lost);
    CHECK(hosts[1].lost_step == 1);
    // Its verdict of step 0 counts: the pool's row of step 0 passes.
    const auto pool = StoreReader(dir.file("m.db")).verdicts();
    REQUIRE_FALSE(pool.empty());
    CHECK(pool[0].step_idx == 0);
    CHECK(pool[0].pass);
}

TEST_CASE("merge lost: every file crashed (the whole job killed): no host is singled out as lost") {
    test::TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db");
    write_host(a, "h0", 0, 1, 0, true);
    write_host(b, "h1", 1, 1, 0, true);
    const MergeResult m = merge_databases(dir.file("m.db"), {a, b});
    CHECK(m.status == RunStatus::crashed);
    for (const auto& h : StoreReader(dir.file("m.db")).hosts()) CHECK_FALSE(h.lost);
}
