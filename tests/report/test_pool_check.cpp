// `seatmark check` on a pool run (tests/report/pool_golden.h): references naming a host, "*"
// (every host must pass, one check each) or "pool" (the pool's steps and E(H), fairness), the
// documented pool example, and bad references refused with file:line before anything is checked.
#include <doctest/doctest.h>

#include "common/errors.h"
#include "report/analysis.h"
#include "report/check.h"
#include "report/compare.h"
#include "report/references.h"
#include "tests/report/pool_golden.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::report;

namespace {

const CheckResult* find(const CheckReport& r, const std::string& host, const std::string& metric) {
    for (const auto& x : r.results)
        if (x.host == host && x.metric == metric) return &x;
    return nullptr;
}

}  // namespace

TEST_CASE("check on a pool: a host's own steps, '*' for every host, 'pool' for the pool and E(H)") {
    test::TempDir dir;
    const RunAnalysis a = analyze(test::make_golden_pool(dir, false));
    const References refs = parse_references(R"(
[[reference]]
host = "*"
max_density = [3, 0, "inf", "sessions"]
[[reference]]
host = "h1"
step = 2
p95_ms = [20.0, "-inf", 0.0, "ms"]
[[reference]]
host = "pool"
hosts = 2
max_density = [4, 0, 0, "sessions"]
scaling_efficiency = [0.9, 0, "inf", "ratio"]
host_fairness = [0.99, 0, "inf", "index"]
[[reference]]
host = "pool"
step = 6
failures = [0, 0, 0, "sessions"]
)", "pool.toml");
    const CheckReport r = run_check(a, refs);
    INFO(check_table(r));
    // "*": one check per host; h1 holds only 2 of its own sessions.
    const CheckResult* h0 = find(r, "h0", "max_density");
    const CheckResult* h1 = find(r, "h1", "max_density");
    REQUIRE(h0);
    REQUIRE(h1);
    CHECK(h0->pass);
    CHECK(h0->measured == 3);
    CHECK_FALSE(h1->pass);
    CHECK(h1->measured == 2);
    CHECK(h1->line == 4);
    // h1's own step with 2 of its sessions: p95 20 ms.
    const CheckResult* p95 = find(r, "h1", "p95_ms");
    REQUIRE(p95);
    CHECK(p95->pass);
    CHECK(doctest::Approx(p95->measured) == 20.0);
    CHECK(find(r, "h0", "p95_ms") == nullptr);
    // The pool: max density 4 (exact), E(2) = 0.67 < 0.9, fairness ~0.997.
    const CheckResult* md = find(r, "pool", "max_density");
    REQUIRE(md);
    CHECK(md->pass);
    const CheckResult* e = find(r, "pool", "scaling_efficiency");
    REQUIRE(e);
    CHECK(e->step == "E(2)");
    CHECK(doctest::Approx(e->measured) == 4.0 / 6.0);
    CHECK_FALSE(e->pass);
    CHECK(e->line == 13);
    const CheckResult* f = find(r, "pool", "host_fairness");
    REQUIRE(f);
    CHECK(f->pass);
    // The pool's step of 6 sessions: h1's failures do not count as session failures (none crashed).
    const CheckResult* fail = find(r, "pool", "failures");
    REQUIRE(fail);
    CHECK(fail->step == "6");
    CHECK(fail->pass);
    CHECK_FALSE(r.passed());
}

TEST_CASE("check on a pool: the documented pool example passes, JUnit names each host") {
    test::TempDir dir;
    const std::string db = test::make_golden_pool(dir, false);
    const std::string example = std::string(SEATMARK_SOURCE_DIR) + "/report/examples/pool-references.toml";
    auto r = test::run_process(test::seatmark_argv({"check", db, "--references", example, "--junit", dir.file("j.xml")}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    const std::string xml = test::read_file(dir.file("j.xml"));
    CHECK(xml.find("seatmark.h0.") != std::string::npos);
    CHECK(xml.find("seatmark.h1.") != std::string::npos);
    CHECK(xml.find("seatmark.pool.") != std::string::npos);
    // The same references on a lost pool: the pool held 4 sessions before h1 was lost in step 3.
    const std::string lost = test::make_golden_pool(dir, true);
    r = test::run_process(test::seatmark_argv({"check", lost, "--references", example}));
    CHECK(r.exit_code == 1);  // the run did not finish (degraded)
    CHECK(r.out.find("degraded") != std::string::npos);
}

TEST_CASE("references: bad host names and pool metrics in the wrong place are refused with file:line") {
    auto err = [](const std::string& text) {
        try {
            parse_references(text, "refs.toml");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(err("[[reference]]\nhost = \"h 1\"\nmax_density = [1, 0, \"inf\"]\n").find("refs.toml:2:") != std::string::npos);
    CHECK(err("[[reference]]\nhost = \"h 1\"\nmax_density = [1, 0, \"inf\"]\n").find("\"pool\" (the pool as a whole)") !=
          std::string::npos);
    const std::string misplaced = err("[[reference]]\nhost = \"h0\"\nhosts = 2\nscaling_efficiency = [0.9, 0, \"inf\"]\n");
    CHECK(misplaced.find("refs.toml:3:") != std::string::npos);
    CHECK(misplaced.find("host = \"pool\"") != std::string::npos);
    const std::string no_h = err("[[reference]]\nhost = \"pool\"\nscaling_efficiency = [0.9, 0, \"inf\"]\n");
    CHECK(no_h.find("refs.toml:3:") != std::string::npos);
    CHECK(no_h.find("give hosts = H") != std::string::npos);
    CHECK(err("[[reference]]\nhost = \"*\"\nhost_fairness = [0.9, 0, \"inf\"]\n").find("refs.toml:3:") != std::string::npos);
    CHECK(err("[[reference]]\nhost = \"pool\"\nhosts = 0\nscaling_efficiency = [0.9, 0, \"inf\"]\n").find("refs.toml:3:") !=
          std::string::npos);
    CHECK(err("[[reference]]\nhost = \"pool\"\nstep = 4\nhost_fairness = [0.9, 0, \"inf\"]\n").find("refs.toml:4:") !=
          std::string::npos);
}

TEST_CASE("compare on pool runs: the pool's steps, then each host's own, in JSON too") {
    test::TempDir dir;
    const RunAnalysis a = analyze(test::make_golden_pool(dir, false));
    const RunAnalysis b = analyze(test::make_golden_pool(dir, true));
    const std::string t = compare_text(a, b);
    INFO(t);
    CHECK(t.find("pool of 2 hosts (rank 0 h0)") != std::string::npos);
    CHECK(t.find("host h0: max density A 3, B 3 (+0)") != std::string::npos);
    CHECK(t.find("host h1: max density A 2, B 2 (+0)") != std::string::npos);
    const auto j = compare_json(a, b);
    REQUIRE(j["hosts"].size() == 2);
    CHECK(j["hosts"][1]["host_a"] == "h1");
    // h1's step of 3 sessions: failed in A (p95 35 ms), lost in B (not measured there).
    const auto& steps = j["hosts"][1]["steps"];
    REQUIRE(steps.size() >= 3);
    CHECK(steps[2]["sessions"] == 3);
    CHECK(steps[2]["verdict_a"] == "fail");
    CHECK(steps[2]["verdict_b"] == "not measured");
    CHECK(steps[2]["p95_ms"]["a"] == doctest::Approx(35.0));
    CHECK(steps[2]["p95_ms"]["b"].is_null());
    CHECK(j["b"]["hosts"] == 2);
}
