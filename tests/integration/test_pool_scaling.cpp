// A scaling series under a real mpirun ([scaling] hosts = [1, 2]: the ramp on rank 0 alone, then
// on both ranks, in one run) and the pool plans that exit 2 with file:line before anything starts.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/input_error.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("pool: a scaling series runs the ramp on 1 then 2 hosts in one run and stores E(H) as rows") {
    TempDir t;
    const std::string plan = t.file("scale.toml");
    write_file(plan, pool_plan("2", "", "1s") + "[scaling]\nhosts = [1, 2]\n");
    auto r = run_process(pool_argv(2, plan, t.file("scale.db")), 120, mpi_env);
    INFO(r.err);
    INFO(r.out);
    REQUIRE_FALSE(r.timed_out);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("on 2 host(s): max") != std::string::npos);
    store::StoreReader m(t.file("scale.db"));
    // Two steps: 2 sessions on h0 alone (h1 idle), then 2 sessions spread 1 + 1.
    auto steps = m.steps();
    REQUIRE(steps.size() == 2);
    REQUIRE(steps[0].pool_hosts);
    REQUIRE(steps[1].pool_hosts);
    CHECK(*steps[0].pool_hosts == 1);
    CHECK(*steps[1].pool_hosts == 2);
    CHECK(steps[0].target_sessions == 2);
    CHECK(steps[1].target_sessions == 2);
    std::map<std::pair<std::string, int64_t>, int> placed;  // (host, step) -> sessions that ran in it
    for (const auto& s : m.sessions()) {
        for (const auto& st : steps)
            if (s.started_ns <= *st.window_start_ns && (!s.ended_ns || *s.ended_ns >= *st.window_end_ns))
                ++placed[{s.host, st.idx}];
    }
    CHECK(placed[{"h0", 0}] == 2);
    CHECK(placed[{"h1", 0}] == 0);
    CHECK(placed[{"h0", 1}] == 1);
    CHECK(placed[{"h1", 1}] == 1);
    // An idle host has no verdict of its own for the step; the pool's rows cover both steps.
    CHECK(m.host_verdicts("h1").size() == 2);  // step 2: its window and the pooled row
    CHECK(m.host_verdicts("h0").size() == 4);
    // E(H) from this one run: max passing on H / (H x max passing on 1).
    auto scaling = m.scaling();
    REQUIRE(scaling.size() == 2);
    CHECK(scaling[0].hosts == 1);
    CHECK(scaling[1].hosts == 2);
    CHECK(scaling[0].complete);
    CHECK(scaling[1].complete);
    std::map<int, int64_t> passing;  // pool size -> max passing pool sessions, from the pool's step rows
    for (const auto& v : m.verdicts()) {
        const int h = *steps.at(static_cast<size_t>(v.step_idx)).pool_hosts;
        if (v.repeat == store::pooled_repeat && v.pass) passing[h] = std::max<int64_t>(passing[h], v.target_sessions);
    }
    CHECK(scaling[0].max_sessions == passing[1]);
    CHECK(scaling[1].max_sessions == passing[2]);
    MESSAGE("E(1) = " << scaling[0].efficiency.value_or(NAN) << ", E(2) = " << scaling[1].efficiency.value_or(NAN)
                      << " (max " << scaling[0].max_sessions << " on 1 host, " << scaling[1].max_sessions << " on 2)");
    if (passing[1] > 0) {
        REQUIRE(scaling[1].efficiency);
        CHECK(*scaling[0].efficiency == doctest::Approx(1.0));
        CHECK(*scaling[1].efficiency == doctest::Approx(double(passing[2]) / (2.0 * double(passing[1]))));
    } else {
        CHECK_FALSE(scaling[1].efficiency);
    }
}

TEST_CASE("pool: bad pool plans exit 2 with file:line on every rank, nothing started") {
    TempDir t;
    struct Bad {
        std::string name, text, where, what;
    };
    const std::vector<Bad> bad = {
        {"placement", pool_plan("2", "placement = \"round-robin\"\n"), "placement =", "round-robin"},
        {"tight", pool_plan("2, 6", "placement = \"depth-first\"\nmax_sessions_per_host = 2\n"), "[pool]",
         "holds 4 sessions, but step 2 wants 6"},
        // The pool's size is known only once the ranks run: refused before anything starts.
        {"wide", pool_plan("2", "") + "[scaling]\nhosts = [1, 2, 4]\n", "hosts =",
         "[scaling] hosts wants a pool of 4 hosts, but this run has 2 rank(s)"},
    };
    for (const Bad& b : bad) {
        CAPTURE(b.name);
        const std::string plan = t.file(b.name + ".toml");
        write_file(plan, b.text);
        auto r = run_process(pool_argv(2, plan, t.file(b.name + ".db")), 60, mpi_env);
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(test::file_line(b.name + ".toml", b.text, b.where) + ":") != std::string::npos);
        CHECK(r.err.find(b.what) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(t.file(b.name + ".h0.db")));
        CHECK_FALSE(std::filesystem::exists(t.file(b.name + ".h1.db")));
    }
}
