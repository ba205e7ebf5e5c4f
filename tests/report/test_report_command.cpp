// `seatmark report` as a user runs it: the files it writes, the numbers in report.json against
// the hand-computed answers of the golden database, the HTML in real headless Chromium, and
// clear errors for databases it cannot read.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "image/png.h"
#include "tests/report/golden.h"
#include "tests/support/input_error.h"
#include "tests/support/process.h"

using namespace seatmark;
using nlohmann::json;
namespace golden = seatmark::test::golden;

namespace {

}  // namespace

TEST_CASE("seatmark report writes HTML, Markdown, CSV and JSON with the hand-computed answers") {
    test::TempDir dir;
    const std::string db = dir.file("golden.db");
    golden::write(db, golden::crafted());
    auto r = test::run_process(test::seatmark_argv({"report", db}));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // Default folder: the database's name without .db, plus -report; the paths are printed.
    const std::string out = dir.file("golden-report");
    for (const char* f : {"index.html", "summary.md", "steps.csv", "sessions.csv", "report.json"}) {
        CAPTURE(f);
        CHECK(std::filesystem::file_size(out + "/" + f) > 0);
        CHECK(r.out.find(out + "/" + f) != std::string::npos);
    }
    CHECK(r.out.find("max density: 6 sessions") != std::string::npos);

    json j = json::parse(test::read_file(out + "/report.json"));
    CHECK(j["max_density"] == 6);
    CHECK(j["max_density_step"] == 6);
    CHECK(j["finished"] == true);
    CHECK(j["software_renderer"] == true);
    CHECK(j["knee"]["sessions"] == 4);
    CHECK(j["knee"]["baseline_ms"].get<double>() == doctest::Approx(16));
    CHECK(j["knee"]["threshold_ms"].get<double>() == doctest::Approx(20));
    CHECK(j["sla"]["default"]["p95_interval_ms"].get<double>() == doctest::Approx(33.3));
    REQUIRE(j["steps"].size() == 8);
    const json& s4 = j["steps"][3];
    CHECK(s4["sessions"] == 4);
    CHECK(s4["failures"] == 1);
    CHECK(s4["failures_by_reason"]["crash"] == 1);
    CHECK(s4["verdict"] == "pass");
    CHECK(s4["p95_ms"].get<double>() == doctest::Approx(22));
    CHECK(s4["fps_median"].get<double>() == doctest::Approx(1000.0 / 22));
    CHECK(s4["host_cpu_mean_pct"].get<double>() == doctest::Approx(40));
    CHECK(j["steps"][6]["verdict"] == "fail");
    CHECK(j["steps"][6]["p95_ms"].get<double>() == doctest::Approx(40));
    CHECK(j["steps"][6]["low1_fps"].get<double>() == doctest::Approx(25));
    const json& s2 = j["steps"][1];
    CHECK(s2["windows"].size() == 2);
    CHECK(s2["fps_ci"]["windows"] == 2);
    CHECK(s2["fps_ci"]["lo"].get<double>() == doctest::Approx(14.9098).epsilon(1e-4));
    CHECK(s2["fps_ci"]["hi"].get<double>() == doctest::Approx(103.1458).epsilon(1e-4));
    CHECK(s2["p95_ms"].get<double>() == doctest::Approx(18));
    CHECK(j["steps"][0]["fps_ci"]["lo"].is_null());
    CHECK(j["sessions"].size() == 9);
    CHECK(j["sessions"][2]["end_reason"] == "crash");
    CHECK(j["sessions"][2]["failed"] == true);
    CHECK(j["definitions"].contains("max density"));

    // CSV: a header and one row per step; a row per session per step.
    std::string steps = test::read_file(out + "/steps.csv");
    CHECK(steps.rfind("step,sessions,", 0) == 0);
    CHECK(test::occurrences(steps, "\n") == 9);
    CHECK(steps.find("\n4,4,4,1,1,") != std::string::npos);
    std::string sessions = test::read_file(out + "/sessions.csv");
    CHECK(test::occurrences(sessions, "\n") == 1 + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8);

    std::string md = test::read_file(out + "/summary.md");
    CHECK(md.find("**Max density: 6 sessions**") != std::string::npos);
    CHECK(md.find("software renderer") != std::string::npos);

    // The HTML: one file, no script, no network, charts drawn as inline SVG.
    std::string html = test::read_file(out + "/index.html");
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));
    CHECK(html.find("https://") == std::string::npos);
    CHECK(test::occurrences(html, "<svg") == 6);  // p95, FPS, heat map, time line, USL fit, p95 fit
    CHECK(test::occurrences(html, "<rect") > 50);
    CHECK(test::occurrences(html, "<polyline") >= 3);
    CHECK(html.find("Max density") != std::string::npos);
    CHECK(html.find("SOFTWARE RENDERER") != std::string::npos);
    CHECK(html.find("Definitions") != std::string::npos);
}

TEST_CASE("the report's HTML renders in headless Chromium: charts drawn, not blank") {
    const std::string chromium = "/usr/bin/chromium";
    REQUIRE_MESSAGE(std::filesystem::exists(chromium), "Chromium is needed (scripts/deps.sh installs it)");
    test::TempDir dir;
    const std::string db = dir.file("golden.db");
    golden::write(db, golden::crafted());
    auto r = test::run_process(test::seatmark_argv({"report", db, "--out", dir.file("rep"), "--quiet"}));
    REQUIRE(r.exit_code == 0);
    const std::string png = dir.file("shot.png");
    auto c = test::run_process({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--log-level=3",
                                "--user-data-dir=" + dir.file("profile"), "--screenshot=" + png,
                                "--window-size=1280,2000", "file://" + dir.file("rep") + "/index.html"},
                               120, {"HOME=" + dir.path});
    INFO(c.err);
    REQUIRE(std::filesystem::exists(png));
    image::Pixels px = image::read_png(png);
    CHECK(px.width == 1280);
    CHECK(px.height == 2000);
    std::set<uint32_t> colours;
    size_t not_white = 0, red = 0, green = 0;
    for (size_t i = 0; i + 3 < px.rgba.size(); i += 4) {
        uint8_t R = px.rgba[i], G = px.rgba[i + 1], B = px.rgba[i + 2];
        colours.insert(uint32_t(R) << 16 | uint32_t(G) << 8 | B);
        if (R < 235 || G < 235 || B < 235) ++not_white;
        if (R > 150 && G < 80 && B < 80) ++red;      // failing steps, the SLA line
        if (G > 100 && R < 90 && B < 90) ++green;    // passing steps, max density
    }
    const double pixels = double(px.width) * px.height;
    MESSAGE("distinct colours " << colours.size() << ", non-white " << not_white / pixels << ", red " << red
                                << ", green " << green);
    CHECK(colours.size() > 200);
    CHECK(double(not_white) / pixels > 0.15);
    CHECK(red > 500);
    CHECK(green > 500);
}

TEST_CASE("report: truncated, foreign and missing databases give a clear error and exit 2") {
    test::TempDir dir;
    const std::string db = dir.file("golden.db");
    golden::write(db, golden::crafted());

    // Truncated to a third: SQLite finds it malformed.
    auto size = std::filesystem::file_size(db);
    std::filesystem::copy_file(db, dir.file("cut.db"));
    std::filesystem::resize_file(dir.file("cut.db"), size / 3);
    auto r = test::run_process(test::seatmark_argv({"report", dir.file("cut.db"), "--out", dir.file("cut")}));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("cut.db") != std::string::npos);
    CHECK((r.err.find("damaged or truncated") != std::string::npos || r.err.find("malformed") != std::string::npos));

    // A foreign SQLite database.
    auto s = test::run_process({"/usr/bin/sqlite3", dir.file("other.db"), "CREATE TABLE t(x); INSERT INTO t VALUES(1);"});
    REQUIRE(s.exit_code == 0);
    r = test::run_process(test::seatmark_argv({"report", dir.file("other.db")}));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("not a seatmark run database") != std::string::npos);

    // Not SQLite at all, and a missing file.
    test::write_file(dir.file("notes.db"), std::string(4096, 'x'));
    r = test::run_process(test::seatmark_argv({"report", dir.file("notes.db")}));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("not an SQLite database") != std::string::npos);
    r = test::run_process(test::seatmark_argv({"report", dir.file("nowhere.db")}));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("nowhere.db") != std::string::npos);
}

TEST_CASE("report --help shows an example") {
    for (const char* cmd : {"report", "check", "compare"}) {
        CAPTURE(cmd);
        auto r = test::run_process(test::seatmark_argv({cmd, "--help"}));
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("Example:") != std::string::npos);
    }
}
