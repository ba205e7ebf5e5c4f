// `seatmark compare`: two runs side by side per step, with differences.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
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
    CHECK(std::regex_search(r.out, std::regex("\n  6 +fps_median +33\\.3 +28\\.6 +-4\\.8 +-14\\.3 %\n")));
    CHECK(std::regex_search(r.out, std::regex("\n +p95_ms +30\\.0 +35\\.0 +\\+5\\.0 +\\+16\\.7 %\n")));
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
