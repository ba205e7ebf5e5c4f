// The report, check and monitor on a real pool run with a scaling series (a real mpirun with 2
// ranks, [scaling] hosts = [1, 2]): the report's E(H), recomputed from the frames host by host,
// equals the scaling rows the merge stored; the idle host sits the 1-host ramp out; check gates
// on E(2); the monitor's .db source lists both hosts.
#include <doctest/doctest.h>

#include <cmath>

#include "monitor/db_source.h"
#include "monitor/host_groups.h"
#include "report/analysis.h"
#include "report/check.h"
#include "report/references.h"
#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("pool report: a real scaling series, E(H) recomputed host by host equals the stored scaling rows") {
    TempDir t;
    const std::string plan = t.file("scale.toml");
    write_file(plan, pool_plan("2", "", "1s") + "[scaling]\nhosts = [1, 2]\n");
    auto r = run_process(pool_argv(2, plan, t.file("scale.db")), 120, mpi_env);
    INFO(r.err);
    REQUIRE_FALSE(r.timed_out);
    REQUIRE(r.exit_code == 0);
    const report::RunAnalysis a = report::analyze(t.file("scale.db"));
    store::StoreReader m(t.file("scale.db"));
    REQUIRE(a.pool.is_pool());
    REQUIRE(a.steps.size() == 2);
    CHECK(a.steps[0].pool_hosts == 1);
    CHECK(a.steps[1].pool_hosts == 2);
    // h1 sat the 1-host ramp out; in the 2-host ramp each host ran 1 of the pool's 2 sessions.
    const auto& h1 = a.pool.hosts.at(1);
    CHECK(h1.steps[0].idle);
    CHECK_FALSE(h1.steps[0].judged);
    CHECK(h1.steps[1].target == 1);
    CHECK(a.pool.hosts[0].steps[0].target == 2);
    // Each host's recomputed verdict equals the one it stored (its own windows, its own sessions).
    for (const auto& h : a.pool.hosts)
        for (const auto& s : h.steps) {
            CAPTURE(h.host.hostname);
            CAPTURE(s.idx);
            if (!s.judged) continue;
            REQUIRE(s.stored);
            CHECK(s.stored->pass == s.verdict.pass);
            CHECK(s.stored->frames == int64_t(s.verdict.frames));
        }
    // E(H): measured (not estimated), one point per pool size, as the merge stored it.
    const auto rows = m.scaling();
    REQUIRE(rows.size() == 2);
    REQUIRE(a.pool.scaling.size() == 2);
    CHECK_FALSE(a.pool.scaling_estimated());
    for (size_t i = 0; i < 2; ++i) {
        CAPTURE(i);
        CHECK(a.pool.scaling[i].hosts == uint32_t(rows[i].hosts));
        CHECK(a.pool.scaling[i].max_sessions == uint32_t(rows[i].max_sessions));
        CHECK(std::isfinite(a.pool.scaling[i].efficiency) == rows[i].efficiency.has_value());
        if (rows[i].efficiency) CHECK(a.pool.scaling[i].efficiency == doctest::Approx(*rows[i].efficiency));
    }
    // Max density is the whole pool's ramp's, as stored.
    CHECK(int64_t(a.max_density) == m.run().max_density.value_or(-1));
    MESSAGE("E(1) " << a.pool.scaling[0].efficiency << ", E(2) " << a.pool.scaling[1].efficiency << "; max "
                    << a.pool.scaling[0].max_sessions << " on 1 host, " << a.pool.scaling[1].max_sessions << " on 2");

    // check: a gate on E(2) gives a result for the pool with the measured figure.
    const auto refs = report::parse_references(
        "[[reference]]\nhost = \"pool\"\nhosts = 2\nscaling_efficiency = [0.5, 0, \"inf\", \"ratio\"]\n", "gate.toml");
    const auto rep = report::run_check(a, refs);
    bool found = false;
    for (const auto& x : rep.results)
        if (x.metric == "scaling_efficiency") {
            found = true;
            CHECK(x.host == "pool");
            CHECK(x.step == "E(2)");
            if (rows[1].efficiency) CHECK(x.measured == doctest::Approx(*rows[1].efficiency));
            else CHECK(x.message.find("no E(2)") != std::string::npos);
        }
    CHECK(found);

    // The monitor's .db source: both hosts listed, the grid in two groups.
    monitor::DbSource src(t.file("scale.db"));
    const auto st = src.state_at(src.run_seconds());
    CHECK(st.hosts.size() == 2);
    CHECK(monitor::group_by_host(st).size() == 2);
}
