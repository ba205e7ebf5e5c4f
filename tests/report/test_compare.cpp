// `seatmark compare`: two runs side by side per step, with differences.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <regex>

#include "tests/report/golden.h"
#include "tests/support/process.h"

using namespace seatmark;
namespace golden = seatmark::test::golden;

TEST_CASE("compare matches steps by session count and gives differences, absolute and in %") {
    test::TempDir dir;
    golden::write(dir.file("a.db"), golden::crafted());
    golden::Spec b = golden::crafted();
    b.steps[5].window_interval_ms = {35};  // 6 sessions now at 35 ms: fails, max density 5
    b.steps[5].stored_verdict = "fail";
    b.steps.pop_back();                    // and B never ran 8 sessions
    golden::write(dir.file("b.db"), b);

    auto r = test::run_process(test::seatmark_argv({"compare", dir.file("a.db"), dir.file("b.db")}));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("max density: A 6, B 5 sessions (-1, -16.7 %)") != std::string::npos);
    // Step 6: p95 30 -> 35 ms (+5.0, +16.7 %); FPS 33.3 -> 28.6.
    CHECK(std::regex_search(r.out, std::regex("\n  6 +fps_median +33\\.3 +28\\.6 +-4\\.8 +-14\\.3 %  worse \\(spread unknown\\)\n")));
    CHECK(std::regex_search(r.out, std::regex("\n +p95_ms +30\\.0 +35\\.0 +\\+5\\.0 +\\+16\\.7 %  worse \\(spread unknown\\)\n")));
    CHECK(std::regex_search(r.out, std::regex("\n +verdict +pass +fail\n")));

    auto j = test::run_process(test::seatmark_argv({"compare", dir.file("a.db"), dir.file("b.db"), "--json"}));
    REQUIRE(j.exit_code == 0);
    auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["a"]["max_density"] == 6);
    CHECK(doc["b"]["max_density"] == 5);
    CHECK(doc["max_density_diff"] == -1);
    REQUIRE(doc["steps"].size() == 8);
    const auto& s6 = doc["steps"][5];
    CHECK(s6["sessions"] == 6);
    CHECK(s6["verdict_a"] == "pass");
    CHECK(s6["verdict_b"] == "fail");
    CHECK(s6["p95_ms"]["diff"].get<double>() == doctest::Approx(5));
    CHECK(s6["p95_ms"]["diff_pct"].get<double>() == doctest::Approx(100.0 / 6));
    const auto& s8 = doc["steps"][7];
    CHECK(s8["verdict_b"] == "-");
    CHECK(s8["p95_ms"]["b"].is_null());
    CHECK(s8["p95_ms"]["diff"].is_null());
}

TEST_CASE("compare marks each difference better or worse, and says when it lies within the runs' own window-to-window spread") {
    test::TempDir dir;
    // Three windows a step (known p95 each); step 3 one window. Intervals of the mean over the
    // windows, t(0.975, 2) = 4.303: A step 1 16.5 +- 1.24 ms; B step 1 16.7 +- 1.24 (overlap:
    // within); A step 2 20.5 +- 1.24, B step 2 30.5 +- 1.24 (apart: beyond).
    golden::Spec a = golden::crafted();
    a.crashes.clear();
    a.steps = {{1, {16, 16.5, 17}, "pass"}, {2, {20, 20.5, 21}, "pass"}, {3, {22}, "pass"}};
    golden::Spec b = a;
    b.steps = {{1, {16.2, 16.7, 17.2}, "pass"}, {2, {30, 30.5, 31}, "pass"}, {3, {25}, "pass"}};
    golden::write(dir.file("a.db"), a);
    golden::write(dir.file("b.db"), b);

    auto j = test::run_process(test::seatmark_argv({"compare", dir.file("a.db"), dir.file("b.db"), "--json"}));
    INFO(j.out << j.err);
    REQUIRE(j.exit_code == 0);
    auto doc = nlohmann::json::parse(j.out);
    REQUIRE(doc["steps"].size() == 3);
    const auto& s1 = doc["steps"][0];
    CHECK(s1["p95_ms"]["direction"] == "worse");  // a longer frame interval
    CHECK(s1["p95_ms"]["spread"] == "within");
    CHECK(s1["fps_median"]["direction"] == "worse");  // fewer frames
    CHECK(s1["fps_median"]["spread"] == "within");
    REQUIRE(s1["p95_ms"]["a_ci95"].is_array());
    CHECK(s1["p95_ms"]["a_ci95"][0].get<double>() == doctest::Approx(16.5 - 4.303 * 0.5 / std::sqrt(3.0)).epsilon(1e-3));
    CHECK(s1["p95_ms"]["a_ci95"][1].get<double>() == doctest::Approx(16.5 + 4.303 * 0.5 / std::sqrt(3.0)).epsilon(1e-3));
    const auto& s2 = doc["steps"][1];
    CHECK(s2["p95_ms"]["direction"] == "worse");
    CHECK(s2["p95_ms"]["spread"] == "beyond");
    CHECK(s2["fps_median"]["direction"] == "worse");
    CHECK(s2["fps_median"]["spread"] == "beyond");
    CHECK(s2["failures"]["direction"] == "same");
    const auto& s3 = doc["steps"][2];
    CHECK(s3["p95_ms"]["direction"] == "worse");
    CHECK(s3["p95_ms"]["spread"] == "unknown");  // one window: no spread of its own
    CHECK(s3["p95_ms"]["a_ci95"].is_null());

    // B against A the other way round: the marks turn.
    auto back = test::run_process(test::seatmark_argv({"compare", dir.file("b.db"), dir.file("a.db"), "--json"}));
    REQUIRE(back.exit_code == 0);
    CHECK(nlohmann::json::parse(back.out)["steps"][1]["p95_ms"]["direction"] == "better");

    auto t = test::run_process(test::seatmark_argv({"compare", dir.file("a.db"), dir.file("b.db")}));
    INFO(t.out);
    REQUIRE(t.exit_code == 0);
    CHECK(std::regex_search(t.out, std::regex("\n  1 +fps_median [^\n]* %  worse \\(within spread\\)\n")));
    CHECK(std::regex_search(t.out, std::regex("\n  2 +fps_median [^\n]* %  worse\n")));
    CHECK(std::regex_search(t.out, std::regex("\n  3 +fps_median [^\n]* %  worse \\(spread unknown\\)\n")));
    CHECK(std::regex_search(t.out, std::regex("\n +failures +0 +0 +\\+0 +\\+0\\.0 %  same\n")));
    CHECK(t.out.find("measure with [steps] repeats = 3 or more") != std::string::npos);
}
