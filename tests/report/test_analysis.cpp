// The density analysis on golden databases whose answers are known by hand (golden.h).
#include <doctest/doctest.h>

#include <cmath>

#include "common/errors.h"
#include "report/analysis.h"
#include "report/confidence.h"
#include "report/words.h"
#include "tests/report/golden.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::report;
namespace golden = seatmark::test::golden;

TEST_CASE("crafted run: max density 6, the crash counted at step 4, knee at 4, CI of the repeated step") {
    test::TempDir dir;
    const std::string db = dir.file("golden.db");
    uint64_t frames = golden::write(db, golden::crafted());
    RunAnalysis a = analyze(db);

    CHECK(a.frames == frames);
    CHECK(a.finished());
    CHECK(a.plan_name == "golden");
    CHECK(a.plan_note.empty());
    CHECK(a.default_sla.failures == 1);
    REQUIRE(a.steps.size() == 8);
    CHECK(a.max_density == 6);
    REQUIRE(a.max_density_step);
    CHECK(*a.max_density_step == 5);

    // Steps 1..6 pass, 7 and 8 fail on p95 (40 and 45 ms > 33.3 ms); all agree with what was stored.
    for (size_t k = 0; k < 8; ++k) {
        CAPTURE(k);
        CHECK(a.steps[k].verdict.pass == (k < 6));
        CHECK(a.steps[k].agrees);
        CHECK(a.steps[k].measured);
    }
    REQUIRE(!a.steps[6].verdict.reasons.empty());
    CHECK(a.steps[6].verdict.reasons[0].find("p95 40.0 ms > 33.3 ms") != std::string::npos);

    // Exact per-step figures: every interval in a window is I, so p95 = I and FPS = 1000 / I.
    const double interval[] = {16, 18, 19, 22, 25, 30, 40, 45};
    for (size_t k = 0; k < 8; ++k) {
        CAPTURE(k);
        CHECK(a.steps[k].verdict.p95_median_ms == doctest::Approx(interval[k]));
        CHECK(a.steps[k].verdict.p95_worst_ms == doctest::Approx(interval[k]));
        if (k != 1) CHECK(a.steps[k].verdict.fps_median == doctest::Approx(1000.0 / interval[k]));
        CHECK(a.steps[k].verdict.stutter_worst == 0);
        CHECK(a.steps[k].verdict.latency_p95_worst_ms == doctest::Approx(30));
        CHECK(a.steps[k].verdict.fairness == doctest::Approx(1.0));
        CHECK(a.steps[k].host_cpu_mean_pct == doctest::Approx(10.0 * double(k + 1)));
    }
    // Step 2 pools 313 frames at 16 ms and 278 at 18 ms: p95 (rank 562 of 591) is 18 ms and
    // FPS 591 / 10.012 s.
    CHECK(a.steps[1].verdict.fps_median == doctest::Approx(591.0 / 10.012));

    // The crash at step 4: session 2, one failure of one allowed, the step still passes.
    const StepAnalysis& s4 = a.steps[3];
    CHECK(s4.target == 4);
    CHECK(s4.verdict.failures == 1);
    CHECK(s4.verdict.failures_by_reason.at("crash") == 1);
    CHECK(s4.verdict.sessions.size() == 4);
    CHECK(s4.verdict.pass);
    // Nowhere else: the crashed session is in no later step, and its replacements are.
    for (size_t k = 0; k < 8; ++k)
        if (k != 3) CHECK(a.steps[k].verdict.failures == 0);
    CHECK(a.steps[4].verdict.sessions.size() == 5);
    for (const auto& f : a.steps[4].verdict.sessions) CHECK(f.id != 2);
    CHECK(a.sessions.size() == 9);
    REQUIRE(a.marks.size() == 1);
    CHECK(a.marks[0].kind == "crash");
    CHECK(a.marks[0].session_id == 2u);
    CHECK(a.marks[0].t_s == doctest::Approx(68.0));

    // Knee: baseline 16 ms, threshold 20 ms; step 3 (19 ms) stays below, step 4 (22 ms) leaves it.
    CHECK(a.knee.has_baseline);
    CHECK(a.knee.baseline_ms == doctest::Approx(16));
    CHECK(a.knee.threshold_ms == doctest::Approx(20));
    REQUIRE(a.knee.step);
    CHECK(a.steps[*a.knee.step].target == 4);

    // CI of the repeated step: window FPS medians 62.5 and 55.5556; t(0.975, 1) = 12.706,
    // half width = 12.706 * |a - b| / 2 = 44.118.
    const StepAnalysis& s2 = a.steps[1];
    REQUIRE(s2.windows.size() == 2);
    CHECK(s2.windows[0].verdict.fps_median == doctest::Approx(62.5));
    CHECK(s2.windows[1].verdict.fps_median == doctest::Approx(1000.0 / 18));
    REQUIRE(s2.fps_ci.available());
    CHECK(s2.fps_ci.n == 2);
    CHECK(s2.fps_ci.mean == doctest::Approx(59.02778).epsilon(1e-5));
    CHECK(s2.fps_ci.lo == doctest::Approx(14.9098).epsilon(1e-4));
    CHECK(s2.fps_ci.hi == doctest::Approx(103.1458).epsilon(1e-4));
    // p95 per window 16 and 18 ms: mean 17, half width 12.706.
    CHECK(s2.p95_ci.lo == doctest::Approx(4.294));
    CHECK(s2.p95_ci.hi == doctest::Approx(29.706));
    CHECK_FALSE(a.steps[0].fps_ci.available());
    CHECK(a.steps[0].fps_ci.n == 1);

    // Devices: every session on llvmpipe, flagged as a software renderer.
    REQUIRE(a.devices.size() == 1);
    CHECK(a.devices[0].sessions == 9);
    CHECK(a.any_software);
    Headline h = headline(a);
    CHECK(h.density == "6 sessions");
    bool software_warned = false;
    for (const auto& w : h.warnings) software_warned |= w.find("software renderer") != std::string::npos;
    CHECK(software_warned);

    // The heat map: a row per session, grey (NaN) after session 2 crashed, p95 = I inside steps.
    REQUIRE(a.heat.rows.size() == 9);
    const HeatRow& r0 = a.heat.rows[0];
    size_t bin_at_10s = static_cast<size_t>(10e9 / double(a.heat.bin_ns));
    CHECK(r0.p95_ms[bin_at_10s] == doctest::Approx(16));
    CHECK(a.heat.rows[2].failure == "crash");
}

TEST_CASE("a run whose writer died is reported as not finished, its last step as not measured") {
    test::TempDir dir;
    const std::string db = dir.file("crashed.db");
    golden::Spec spec = golden::crafted();
    spec.finish = false;
    golden::write(db, spec);
    RunAnalysis a = analyze(db);
    CHECK(a.status == store::RunStatus::crashed);
    CHECK_FALSE(a.finished());
    CHECK(a.max_density == 6);
    CHECK_FALSE(a.steps.back().measured);
    CHECK_FALSE(a.steps.back().verdict.pass);
    Headline h = headline(a);
    REQUIRE(!h.warnings.empty());
    CHECK(h.warnings[0].find("did not finish") != std::string::npos);
}

TEST_CASE("a run with no passing step says so") {
    test::TempDir dir;
    const std::string db = dir.file("none.db");
    golden::Spec spec = golden::crafted();
    spec.steps = {{1, {40}, "fail"}, {2, {16}, "pass"}};
    spec.crashes.clear();
    golden::write(db, spec);
    RunAnalysis a = analyze(db);
    CHECK(a.max_density == 0);
    CHECK_FALSE(a.max_density_step);
    CHECK(a.steps[1].verdict.pass);  // a later step passing does not count: the chain broke at step 1
    Headline h = headline(a);
    CHECK(h.density == "none: no step passed");
    bool said = false;
    for (const auto& w : h.warnings) said |= w.find("No step passed") != std::string::npos;
    CHECK(said);
}

TEST_CASE("a recomputed verdict that differs from the stored one is flagged") {
    test::TempDir dir;
    const std::string db = dir.file("disagree.db");
    golden::Spec spec = golden::crafted();
    spec.steps[6].stored_verdict = "pass";  // the frames say 40 ms > 33.3 ms
    golden::write(db, spec);
    RunAnalysis a = analyze(db);
    CHECK_FALSE(a.steps[6].agrees);
    bool said = false;
    for (const auto& w : headline(a).warnings) said |= w.find("recorded 'pass'") != std::string::npos;
    CHECK(said);
}

TEST_CASE("t interval: table values and the two-value case") {
    CHECK(t_quantile_975(1) == doctest::Approx(12.706));
    CHECK(t_quantile_975(10) == doctest::Approx(2.228));
    CHECK(t_quantile_975(60) == doctest::Approx(2.000).epsilon(0.002));
    std::vector<double> v = {10, 12};
    Interval ci = t_interval_95(v);
    CHECK(ci.mean == doctest::Approx(11));
    CHECK(ci.hi - ci.mean == doctest::Approx(12.706));
    std::vector<double> one = {5};
    CHECK_FALSE(t_interval_95(one).available());
}

TEST_CASE("files that are not run databases are InputErrors naming the file") {
    test::TempDir dir;
    test::write_file(dir.file("text.db"), "hello, this is not SQLite at all, just some text that is long enough\n");
    CHECK_THROWS_AS(analyze(dir.file("text.db")), InputError);
    CHECK_THROWS_AS(analyze(dir.file("missing.db")), InputError);
    try {
        analyze(dir.file("missing.db"));
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).find("missing.db") != std::string::npos);
    }
}

TEST_CASE("the knee: none on a flat run, none at the threshold itself, the first step above it") {
    auto knee_of = [](const std::vector<double>& intervals_ms) {
        golden::Spec spec = golden::crafted();
        spec.crashes.clear();
        spec.steps.clear();
        for (size_t k = 0; k < intervals_ms.size(); ++k)
            spec.steps.push_back({uint32_t(k + 1), {intervals_ms[k]}, "pass"});
        test::TempDir dir;
        golden::write(dir.file("k.db"), spec);
        return analyze(dir.file("k.db")).knee;
    };
    // Baseline 16 ms, margin 25 %: threshold 20 ms.
    Knee flat = knee_of({16, 16, 16, 16});
    CHECK(flat.has_baseline);
    CHECK(flat.threshold_ms == doctest::Approx(20));
    CHECK_FALSE(flat.step);
    CHECK_FALSE(knee_of({16, 18, 20, 19}).step);  // reaching the threshold is not leaving it
    Knee above = knee_of({16, 18, 20.5, 30});
    REQUIRE(above.step);
    CHECK(*above.step == 2);  // the first step above, not the worst one
}
