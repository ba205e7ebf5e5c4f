// The renderers' small parts: axis ticks, the heat-map colour scale, escaping, wording.
#include <doctest/doctest.h>

#include <cmath>

#include "report/charts.h"
#include "report/format.h"
#include "report/svg.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/write_report.h"
#include "tests/report/golden.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::report;
namespace golden = seatmark::test::golden;

TEST_CASE("nice axis ticks") {
    CHECK(svg::nice_ticks(0, 47, 5) == std::vector<double>{0, 10, 20, 30, 40});
    CHECK(svg::nice_top(47, 5) == 50);
    CHECK(svg::nice_top(33.3 * 1.15, 6) == 40);
    CHECK(svg::nice_ticks(0, 1, 4) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
    CHECK(svg::tick_label(2.5) == "2.5");
    CHECK(svg::tick_label(20) == "20");
}

TEST_CASE("heat-map colours: green below the SLA bound, yellow at it, red far above") {
    const double sla = 33.3;
    CHECK(heat_colour(5, sla) == "#006837");     // <= 0.25 x
    CHECK(heat_colour(33.3, sla) == "#d9ef8b");  // <= 1.0 x: last colour still within the SLA
    CHECK(heat_colour(34, sla) == "#fee08b");    // just above
    CHECK(heat_colour(500, sla) == "#67001f");   // > 3 x
}

TEST_CASE("escaping and formatting") {
    CHECK(html_escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    CHECK(csv_field("plain") == "plain");
    CHECK(csv_field("a, \"b\"") == "\"a, \"\"b\"\"\"");
    CHECK(num(NAN) == "n/a");
    CHECK(opt_num(-1) == "n/a");
    CHECK(pct(0.053) == "5.3 %");
    CHECK(seconds_text(125) == "2 min 05 s");
    CHECK(seconds_text(8) == "8.0 s");
    // Under a second in ms, with its digits (a 40 ms heat-map bin read "0.0 s").
    CHECK(seconds_text(0.04) == "40 ms");
    CHECK(seconds_text(0.25) == "250 ms");
    CHECK(seconds_text(0.0025) == "2.5 ms");
    Sla sla;
    sla.failures = 1;
    CHECK(sla_text(sla) ==
          "p95 frame interval <= 33.3 ms, 1 % low >= 20 FPS, latency p95 <= 100 ms, stutter <= 5 %, at most 1 failed "
          "session per step");
    CHECK(failures_text({{"crash", 1}, {"hang", 2}}) == "1 crash, 2 hang");
    CHECK(interval_text(Interval{1, 5, 5, 5}) == "n/a (1 window)");
    CHECK(default_report_dir("runs/host42.db") == "runs/host42-report");
    CHECK(default_report_dir("run.sqlite") == "run.sqlite-report");
}

TEST_CASE("summary.md carries a plan's and host's names as text, not as HTML or Markdown") {
    test::TempDir dir;
    golden::Spec spec = golden::crafted();
    const std::string name = "<script>alert(1)</script> *big* | [x](http://e)";
    spec.plan_text.replace(spec.plan_text.find("\"golden\""), 8, "'" + name + "'");
    spec.host = "<img src=x onerror=alert(2)>";
    golden::write(dir.file("x.db"), spec);
    RunAnalysis a = analyze(dir.file("x.db"));
    REQUIRE(a.plan_name == name);
    std::string md = render_markdown(a);
    CAPTURE(md.substr(0, 300));
    CHECK(md.find("<script>") == std::string::npos);
    CHECK(md.find("<img") == std::string::npos);
    CHECK(md.find("&lt;script>alert(1)&lt;/script> \\*big\\* \\| \\[x\\](http://e)") != std::string::npos);
    CHECK(md.find("&lt;img src=x onerror=alert(2)>") != std::string::npos);
    std::string html = render_html(a);
    // One host: no host column or host in the heat map's labels.
    CHECK(html.find("<th class=\"l\">host</th>") == std::string::npos);
    CHECK(html.find(">s0 ci-tiny<") != std::string::npos);
    CHECK(html.find("<script>alert(1)") == std::string::npos);
    CHECK(html.find("<img src=x") == std::string::npos);
}
