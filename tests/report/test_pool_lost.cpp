// A pool host killed outright (kill -9: its writer dies, the launcher stops the survivor) in
// step 3 of a breadth-first ramp of 2, 4, 6 pool sessions on two golden hosts: merged from the
// survivor's file alone, and with the killed host's own file too. The right answers are known by
// construction: the plan placed 1, 2, 3 sessions on each host, so the steps ran 2, 4, 6; the
// killed host is lost in step 3 (where its file ends); without its file the steps it ran before
// are not judged (never "pass 0"); with it they are, and pass. Also: a host the placement gave
// no session in a step is idle there, never "pass 0".
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "core/pool_shares.h"
#include "report/analysis.h"
#include "report/words.h"
#include "store/merge.h"
#include "store/pool_table.h"
#include "store/store_reader.h"
#include "tests/report/golden.h"
#include "tests/support/process.h"

using namespace seatmark;
namespace golden = seatmark::test::golden;

namespace {

std::string plan(const std::string& list) {
    std::string p = golden::plan_text();
    p.replace(p.find("list = [1, 2, 3, 4, 5, 6, 7, 8]"), 31, "list = [" + list + "]");
    return p + "\n[pool]\nplacement = \"breadth-first\"\n";
}

golden::Spec host(const std::string& plan_text, const std::string& name, int rank, const std::vector<uint32_t>& shares) {
    golden::Spec s;
    s.plan_text = plan_text;
    s.host = name;
    s.rank = rank;
    s.pool_id = "pool-killed";
    for (uint32_t n : shares) s.steps.push_back({n, {16}, "pass"});
    return s;
}

// h0 (rank 0) ran steps 1..3 and was stopped by the launcher (aborted); h1 (rank 1) was killed in
// step 3: its writer died there, its last step never ended. h0 recorded h1 as an ordinary member.
struct Killed {
    std::string h0, h1;
};

Killed write_killed(const test::TempDir& dir) {
    const std::string p = plan("2, 4, 6, 8");
    golden::Spec h0 = host(p, "h0", 0, {1, 2, 3});
    h0.end_status = store::RunStatus::aborted;
    store::HostInfo h1row;
    h1row.hostname = "h1";
    h1row.rank = 1;
    h1row.role = std::string(store::role_rank);
    h0.others = {h1row};
    golden::Spec h1 = host(p, "h1", 1, {1, 2, 3});
    h1.finish = false;
    Killed k{dir.file("pool.h0.db"), dir.file("pool.h1.db")};
    golden::write(k.h0, h0);
    golden::write(k.h1, h1);
    return k;
}

bool any_warning(const report::RunAnalysis& a, const std::string& part) {
    const auto w = report::headline(a).warnings;
    return std::any_of(w.begin(), w.end(), [&](const std::string& x) { return x.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("pool lost: merged from the survivor alone, the killed host is lost from its step, the steps keep their true sessions") {
    test::TempDir dir;
    const Killed k = write_killed(dir);
    const std::string out = dir.file("survivors.db");
    const store::MergeResult m = store::merge_databases(out, {k.h0});
    CHECK(m.status == store::RunStatus::degraded);
    store::StoreReader r(out);
    const auto hosts = r.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[1].lost);
    CHECK(hosts[1].lost_step == 2);  // step 3, where the survivor was stopped
    const auto steps = r.steps();
    REQUIRE(steps.size() == 3);
    // The plan placed 1 + 1, 2 + 2, 3 + 3: the pool's sessions, not the survivor's share alone.
    CHECK(steps[0].target_sessions == 2);
    CHECK(steps[1].target_sessions == 4);
    CHECK(steps[2].target_sessions == 6);

    const report::RunAnalysis a = report::analyze(out);
    REQUIRE(a.pool.hosts.size() == 2);
    const auto& h1 = a.pool.hosts[1];
    CHECK(a.steps[0].target == 2);
    for (size_t i = 0; i < 2; ++i) {
        CAPTURE(i);
        CHECK(h1.steps[i].no_data);      // it ran the step, its frames are not here
        CHECK_FALSE(h1.steps[i].judged); // never "pass 0"
        CHECK_FALSE(h1.steps[i].idle);
        CHECK(h1.steps[i].target == i + 1);
        CHECK_FALSE(a.steps[i].verdict.pass);  // the pool's verdict needs h1's: not known
        CHECK(a.steps[i].verdict.reasons.back() == core::missing_host_reason("h1"));
    }
    CHECK(h1.steps[2].lost_here);
    CHECK(a.steps[2].verdict.reasons.back() == core::lost_host_reason("h1"));
    CHECK_FALSE(any_warning(a, "the orchestrator recorded"));
    CHECK_FALSE(any_warning(a, "its figures differ"));
    CHECK(any_warning(a, "No step can be shown to pass"));
    const std::string table = store::pool_table(r);
    INFO(table);
    CHECK(table.find("1, no data (file not merged)") != std::string::npos);
    CHECK(table.find("pass 0") == std::string::npos);
}

TEST_CASE("pool lost: merged with the killed host's own file, it is lost where its file ends and its earlier steps are judged") {
    test::TempDir dir;
    const Killed k = write_killed(dir);
    const std::string out = dir.file("all.db");
    const store::MergeResult m = store::merge_databases(out, {k.h0, k.h1});
    CHECK(m.status == store::RunStatus::degraded);
    store::StoreReader r(out);
    const auto hosts = r.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK_FALSE(hosts[0].lost);
    CHECK(hosts[1].lost);
    CHECK(hosts[1].lost_step == 2);
    REQUIRE(hosts[1].lost_detail);
    CHECK(hosts[1].lost_detail->starts_with("crashed: its database ("));
    CHECK(hosts[1].lost_detail->find("in step 3") != std::string::npos);
    const auto steps = r.steps();
    REQUIRE(steps.size() == 3);
    CHECK(steps[0].target_sessions == 2);
    CHECK(steps[2].target_sessions == 6);

    const report::RunAnalysis a = report::analyze(out);
    const auto& h1 = a.pool.hosts.at(1);
    for (size_t i = 0; i < 2; ++i) {
        CAPTURE(i);
        CHECK(h1.steps[i].judged);
        CHECK_FALSE(h1.steps[i].no_data);
        CHECK(h1.steps[i].target == i + 1);
        CHECK(h1.steps[i].verdict.pass);
        CHECK(a.steps[i].verdict.pass);
    }
    CHECK(h1.steps[2].lost_here);
    CHECK_FALSE(a.steps[2].verdict.pass);
    CHECK(a.max_density == 4);
    CHECK_FALSE(any_warning(a, "the orchestrator recorded"));
}

TEST_CASE("pool lost: a host the placement gave no session in a step is idle there, never pass 0") {
    // Breadth-first 1 then 2 pool sessions on 2 hosts: h1 runs 0, then 1.
    test::TempDir dir;
    const std::string p = plan("1, 2");
    golden::Spec h0 = host(p, "h0", 0, {1, 1});
    store::HostInfo h1row;
    h1row.hostname = "h1";
    h1row.rank = 1;
    h1row.role = std::string(store::role_rank);
    h0.others = {h1row};
    golden::Spec h1 = host(p, "h1", 1, {0, 1});
    golden::write(dir.file("i.h0.db"), h0);
    golden::write(dir.file("i.h1.db"), h1);
    const std::string out = dir.file("idle.db");
    store::merge_databases(out, {dir.file("i.h0.db"), dir.file("i.h1.db")});
    const report::RunAnalysis a = report::analyze(out);
    const auto& x = a.pool.hosts.at(1);
    CHECK(x.steps[0].idle);
    CHECK_FALSE(x.steps[0].judged);
    CHECK(x.steps[1].judged);
    CHECK(x.steps[1].target == 1);
    CHECK(a.steps[0].target == 1);
    CHECK(a.steps[0].verdict.pass);  // h0's one session passed; idle h1 takes no part
    const std::string table = store::pool_table(store::StoreReader(out));
    INFO(table);
    CHECK(table.find("pass 0") == std::string::npos);
    CHECK(table.find("idle") != std::string::npos);
}
