// The report of a pool run: two golden host databases (frames crafted so every figure is known
// by hand) merged by the real `seatmark merge`, analysed, and rendered (HTML in real headless
// Chromium, summary.md, report.json): per-host verdicts and max density, the pool's, the host
// that failed first, fairness over hosts, E(H), cost per user-hour per host and for the pool,
// and a lost host.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "image/png.h"
#include "report/analysis.h"
#include "report/capacity_model.h"
#include "store/merge.h"
#include "tests/report/pool_golden.h"
#include "tests/support/process.h"

using namespace seatmark;


TEST_CASE("pool report: per-host verdicts and max density, the pool's, who failed first, fairness, E(H), cost") {
    test::TempDir dir;
    const report::RunAnalysis a = report::analyze(test::make_golden_pool(dir, false));
    REQUIRE(a.pool.is_pool());
    REQUIRE(a.pool.hosts.size() == 2);
    const auto& h0 = a.pool.hosts[0];
    const auto& h1 = a.pool.hosts[1];
    CHECK(h0.host.hostname == "h0");
    CHECK(h1.host.hostname == "h1");
    CHECK(h0.sessions == 4);
    CHECK(h1.sessions == 4);
    // Each host judged on its own sessions: 1..4 per step.
    CHECK(h0.steps[2].target == 3);
    CHECK(h0.steps[2].verdict.pass);
    CHECK(doctest::Approx(h1.steps[2].verdict.p95_median_ms) == 35.0);
    CHECK_FALSE(h1.steps[2].verdict.pass);
    CHECK(h0.max_density == 3);
    CHECK(h1.max_density == 2);
    // The pool passes a step when both hosts do: 4 sessions (step 2); step 3 fails for h1 alone.
    CHECK(a.max_density == 4);
    CHECK(a.steps[2].verdict.reasons.at(0).starts_with("h1: 3 of 3 sessions failed; worst session "));
    CHECK(a.steps[2].verdict.sessions.size() == 6);
    REQUIRE(a.pool.first_failure);
    CHECK(a.pool.first_failure->host == "h1");
    CHECK(a.pool.first_failure->step == 2);
    CHECK(a.pool.first_failure->host_sessions == 3);
    CHECK(a.pool.first_failure->also.empty());
    // Jain over the hosts' median FPS at the pool's max density (step 2): 1000/18 and 1000/20.
    REQUIRE(a.pool.fairness_step == size_t(1));
    const double x = 1000.0 / 18, y = 1000.0 / 20;
    CHECK(doctest::Approx(a.pool.fairness).epsilon(1e-6) == (x + y) * (x + y) / (2 * (x * x + y * y)));
    // E(2) = 4 / (2 x 3): estimated from the best host's own max density (no [scaling] series).
    REQUIRE(a.pool.scaling.size() == 2);
    CHECK(a.pool.scaling_estimated());
    CHECK(a.pool.scaling[1].hosts == 2);
    CHECK(a.pool.scaling[1].max_sessions == 4);
    CHECK(doctest::Approx(a.pool.scaling[1].efficiency) == 4.0 / 6.0);
    CHECK(a.pool.complete_steps == 4);
    // Cost per user-hour: the pool's 2 x 3.20 over 4 users; each host's 3.20 over its own density.
    const auto cap = report::model_capacity(a);
    REQUIRE(cap.cost.size() == 3);
    CHECK(cap.cost[0].scope == "pool of 2 hosts");
    CHECK(doctest::Approx(*cap.cost[0].per_user_hour) == 1.6);
    CHECK(cap.cost[1].scope == "host h0");
    CHECK(doctest::Approx(*cap.cost[1].per_user_hour) == 3.2 / 3);
    CHECK(cap.cost[2].scope == "host h1");
    CHECK(doctest::Approx(*cap.cost[2].per_user_hour) == 1.6);
}

TEST_CASE("pool report: a lost host: which, when, the pool fails from there, E(H) over the steps every host completed") {
    test::TempDir dir;
    const report::RunAnalysis a = report::analyze(test::make_golden_pool(dir, true));
    REQUIRE(a.pool.is_pool());
    CHECK(a.status == store::RunStatus::degraded);
    const auto& h1 = a.pool.hosts.at(1);
    CHECK(h1.host.lost);
    CHECK(h1.steps[2].lost_here);
    CHECK_FALSE(h1.steps[2].judged);
    CHECK(h1.max_density == 2);
    CHECK(a.pool.complete_steps == 2);
    // Step 3 would have passed on both hosts' frames, but h1 was lost in it.
    CHECK_FALSE(a.steps[2].verdict.pass);
    CHECK(a.steps[2].verdict.reasons.back() == "h1: lost before this span was judged");
    CHECK(a.max_density == 4);
    REQUIRE(a.pool.first_failure);
    CHECK(a.pool.first_failure->host == "h1");
    CHECK(a.pool.first_failure->reason.starts_with("lost: missed the window close"));
    CHECK(doctest::Approx(a.pool.scaling.at(1).efficiency) == 4.0 / 6.0);
}

TEST_CASE("pool report: host-wide figures are each host's own: a table row and a time line per host, never a mix") {
    // h0 samples 10 % host CPU per session, h1 20 %: a mix of the two would show 15 % per session.
    test::TempDir dir;
    const std::string db = test::make_golden_pool(dir, false);
    const report::RunAnalysis a = report::analyze(db);
    REQUIRE(a.steps.size() == 4);
    for (size_t k = 0; k < a.steps.size(); ++k) {
        const auto& s = a.steps[k];
        CAPTURE(k);
        CHECK(s.host_cpu_mean_pct == -1);  // no one figure for the pool's hosts
        REQUIRE(s.host_use.size() == 2);
        CHECK(s.host_use[0].host == "h0");
        CHECK(s.host_use[1].host == "h1");
        const double per_host = double(k + 1);  // breadth-first: 1..4 sessions on each host
        CHECK(s.host_use[0].cpu_mean_pct == doctest::Approx(10 * per_host));
        CHECK(s.host_use[1].cpu_mean_pct == doctest::Approx(20 * per_host));
        CHECK(s.host_use[1].cpu_max_pct == doctest::Approx(20 * per_host));
    }
    REQUIRE(a.host_series.size() == 2);
    CHECK(a.host_series[0].label == "host CPU h0");
    CHECK(a.host_series[1].label == "host CPU h1");
    for (const auto& p : a.host_series[1].points) CHECK(std::fmod(p.v, 20.0) == 0);

    auto r = test::run_process(test::seatmark_argv({"report", db, "--out", dir.file("rep"), "--quiet"}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string md = test::read_file(dir.file("rep/summary.md"));
    CHECK(md.find("## Host-wide use per host") != std::string::npos);
    CHECK(md.find("| 2 | 4 | h1 | 40 | 40 |") != std::string::npos);
    const std::string html = test::read_file(dir.file("rep/index.html"));
    CHECK(html.find("<h2 id=\"host-use\">Host-wide use per host</h2>") != std::string::npos);
    CHECK(html.find("host CPU h1 % (proc)") != std::string::npos);  // the time line's legend
    const auto j = nlohmann::json::parse(test::read_file(dir.file("rep/report.json")));
    CHECK(j["steps"][3]["host_cpu_mean_pct"].is_null());
    CHECK(j["steps"][3]["hosts"][0]["host"] == "h0");
    CHECK(j["steps"][3]["hosts"][0]["host_cpu_mean_pct"] == 40);
    CHECK(j["steps"][3]["hosts"][1]["host_cpu_mean_pct"] == 80);
}

TEST_CASE("pool report: HTML (in headless Chromium), summary.md and report.json carry the pool section") {
    test::TempDir dir;
    const std::string db = test::make_golden_pool(dir, true);
    auto r = test::run_process(test::seatmark_argv({"report", db, "--out", dir.file("rep"), "--quiet"}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string html = test::read_file(dir.file("rep/index.html"));
    CHECK(html.find("<h2 id=\"pool\">Pool of 2 hosts</h2>") != std::string::npos);
    CHECK(html.find("h1 was lost in step 3: missed the window close") != std::string::npos);
    CHECK(html.find("p95 frame interval versus sessions on each host") != std::string::npos);
    CHECK(html.find("E(2) = 0.67") != std::string::npos);
    CHECK(html.find("+0 ns \u00b1 250.0 us") != std::string::npos);
    // Sessions of several hosts: the sessions table and the heat map name each one's host.
    CHECK(html.find("<th class=\"l\">id</th><th class=\"l\">host</th><th class=\"l\">profile</th>") != std::string::npos);
    CHECK(std::regex_search(html, std::regex("<td class=\"l\">[0-9]+</td><td class=\"l\">h1</td><td class=\"l\">ci-tiny</td>")));
    CHECK(std::regex_search(html, std::regex(">s[0-9]+ h0 ci-tiny<")));
    CHECK(std::regex_search(html, std::regex(">s[0-9]+ h1 ci-tiny<")));
    const std::string md = test::read_file(dir.file("rep/summary.md"));
    CHECK(md.find("## Pool of 2 hosts") != std::string::npos);
    CHECK(md.find("in the pool of 2 hosts") != std::string::npos);
    // The pool section's words as written: "35.0 ms > 33.3 ms", not "&gt;" (the file is read as text too).
    CHECK(md.find("&gt;") == std::string::npos);
    CHECK(md.find("&lt;") == std::string::npos);
    CHECK(md.find(" > 33.3 ms") != std::string::npos);
    const auto j = nlohmann::json::parse(test::read_file(dir.file("rep/report.json")));
    REQUIRE(j["pool"].is_object());
    CHECK(j["pool"]["hosts"][1]["status"] == "lost");
    CHECK(j["pool"]["hosts"][1]["lost_step"] == 3);
    CHECK(j["pool"]["hosts"][1]["steps"][2]["verdict"] == "lost");
    CHECK(j["pool"]["first_failure"]["host"] == "h1");
    CHECK(j["pool"]["scaling"][1]["estimated"] == true);
    CHECK(j["capacity"]["cost"].size() == 3);

    // Chromium draws it: the two hosts' colours (report/pool_charts.cpp) appear in the page.
    const std::string chromium = "/usr/bin/chromium";
    REQUIRE_MESSAGE(std::filesystem::exists(chromium), "Chromium is needed (scripts/deps.sh installs it)");
    const std::string png = dir.file("shot.png");
    auto c = test::run_process({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--log-level=3",
                                "--user-data-dir=" + dir.file("profile"), "--screenshot=" + png,
                                "--window-size=1280,6000", "file://" + dir.file("rep") + "/index.html"},
                               120, {"HOME=" + dir.path});
    INFO(c.err);
    REQUIRE(std::filesystem::exists(png));
    image::Pixels px = image::read_png(png);
    size_t purple = 0, teal = 0;
    for (size_t i = 0; i + 3 < px.rgba.size(); i += 4) {
        const int R = px.rgba[i], G = px.rgba[i + 1], B = px.rgba[i + 2];
        if (std::abs(R - 0x6a) < 12 && std::abs(G - 0x1b) < 12 && std::abs(B - 0x9a) < 12) ++purple;  // h0
        if (std::abs(R - 0x00) < 12 && std::abs(G - 0x83) < 12 && std::abs(B - 0x8f) < 12) ++teal;    // h1
    }
    MESSAGE("h0 pixels " << purple << ", h1 pixels " << teal);
    CHECK(purple > 150);
    CHECK(teal > 150);
}
