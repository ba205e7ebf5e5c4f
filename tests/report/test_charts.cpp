// The report's pictures drawn from golden runs (golden.h) whose values are known by hand: a value
// above an axis is marked and written, labels of nearby lines do not sit on each other's lines,
// a fit leaves the chart where it leaves the axis instead of running flat along the top.
#include <doctest/doctest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "report/analysis.h"
#include "report/capacity_model.h"
#include "report/charts.h"
#include "report/html_capacity.h"
#include "tests/report/golden.h"
#include "tests/support/input_error.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::report;
namespace golden = seatmark::test::golden;

namespace {

RunAnalysis analysed(const golden::Spec& spec, test::TempDir& dir) {
    const std::string db = dir.file("g.db");
    golden::write(db, spec);
    return analyze(db);
}

// The y of the first <line> with this dash pattern (the SLA line is "6 4", the knee's "2 3").
double line_y(const std::string& svg, const std::string& dash) {
    std::smatch m;
    const std::regex re("<line x1=\"[^\"]*\" y1=\"([^\"]*)\"[^>]*stroke-dasharray=\"" + dash + "\"");
    REQUIRE(std::regex_search(svg, m, re));
    return std::stod(m[1]);
}

// The baseline y and font size of the <text> whose content starts with `starts`.
std::pair<double, double> text_y(const std::string& svg, const std::string& starts) {
    std::smatch m;
    const std::regex re("<text x=\"[^\"]*\" y=\"([^\"]*)\"[^>]*font-size=\"([^\"]*)\"[^>]*>" + starts);
    REQUIRE(std::regex_search(svg, m, re));
    return {std::stod(m[1]), std::stod(m[2])};
}

// Whether a text at baseline b and size s covers pixel row y (glyphs span about [b - s, b + 3]).
bool covers(std::pair<double, double> text, double y) { return y >= text.first - text.second && y <= text.first + 3; }

struct Point {
    double x, y;
};
std::vector<std::vector<Point>> polylines(const std::string& svg) {
    std::vector<std::vector<Point>> all;
    const std::regex re("<polyline[^>]* points=\"([^\"]*)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
        std::vector<Point> pts;
        const std::string s = (*it)[1];
        const std::regex pt("([-0-9.]+),([-0-9.]+)");
        for (auto p = std::sregex_iterator(s.begin(), s.end(), pt); p != std::sregex_iterator(); ++p)
            pts.push_back({std::stod((*p)[1]), std::stod((*p)[2])});
        all.push_back(pts);
    }
    return all;
}

}  // namespace

TEST_CASE("the p95 chart marks a value above its axis with a triangle and its value, never a point on the edge") {
    test::TempDir dir;
    golden::Spec spec = golden::crafted();
    spec.steps.back().window_interval_ms = {160.2};  // 8 sessions: every frame 160.2 ms apart
    const RunAnalysis a = analysed(spec, dir);
    const std::string svg = p95_chart(a);
    // SLA 33.3 ms: the axis stops at 4x the bound (133.2), on the nice tick 150.
    CHECK(svg.find(">150</text>") != std::string::npos);
    CHECK(svg.find(">175</text>") == std::string::npos);
    // Step 8's median and worst session are both 160.2 ms: two triangles, each with its value.
    CHECK(test::occurrences(svg, "Z\"") == 2);
    CHECK(test::occurrences(svg, ">160 ms</text>") == 2);
    CHECK(svg.find("off the scale, value written beside it") != std::string::npos);
    // No point sits on the top edge (y = 44) as if 150 were its value.
    CHECK(svg.find("cy=\"44\"") == std::string::npos);

    SUBCASE("a run whose values all fit draws no triangle and no off-scale note") {
        test::TempDir d2;
        const std::string plain = p95_chart(analysed(golden::crafted(), d2));
        CHECK(test::occurrences(plain, "Z\"") == 0);
        CHECK(plain.find("off the scale") == std::string::npos);
    }
}

TEST_CASE("the p95 chart's SLA and knee labels each sit on their own side, off the other line") {
    test::TempDir dir;
    golden::Spec spec = golden::crafted();
    // Baseline 27 ms with the plan's 25 % margin: knee threshold 33.75 ms, 0.45 ms above the SLA's 33.3.
    spec.steps = {{1, {27}, "pass"}, {2, {27}, "pass"}, {3, {28}, "pass"}, {4, {29}, "pass"},
                  {5, {30}, "pass"}, {6, {31}, "pass"}, {7, {40}, "fail"}, {8, {45}, "fail"}};
    const RunAnalysis a = analysed(spec, dir);
    REQUIRE(a.knee.has_baseline);
    REQUIRE(a.knee.threshold_ms == doctest::Approx(33.75));
    const std::string svg = p95_chart(a);
    const double sla = line_y(svg, "6 4"), knee = line_y(svg, "2 3");
    const auto sla_label = text_y(svg, "SLA p95"), knee_label = text_y(svg, "knee threshold");
    CHECK(knee < sla);  // the knee threshold is the higher value: its line is higher on the chart
    CHECK_FALSE(covers(sla_label, knee));
    CHECK_FALSE(covers(knee_label, sla));
    CHECK(knee_label.first < knee);  // the upper line's label above it,
    CHECK(sla_label.first > sla);    // the lower one's below it
}

TEST_CASE("the p95 fit's extrapolation leaves the chart at its top edge instead of running flat along it") {
    test::TempDir dir;
    const RunAnalysis a = analysed(golden::crafted(), dir);
    const CapacityAnalysis c = model_capacity(a);
    REQUIRE(c.crossing.ok);
    const std::string svg = p95_fit_chart(c);
    const double top = 30, bottom = 330 - 46;  // the capacity charts' frame (html_capacity.cpp)
    const auto lines = polylines(svg);
    REQUIRE_FALSE(lines.empty());
    // The fitted p95 grows past the axis top (60 ms) before 11 sessions, the chart's right end.
    REQUIRE(c.crossing.fit.predict(11) > 60);
    int on_top = 0;
    for (const auto& l : lines)
        for (size_t i = 0; i < l.size(); ++i) {
            CHECK(l[i].y >= top - 0.05);
            CHECK(l[i].y <= bottom + 0.05);
            if (std::abs(l[i].y - top) < 0.05) ++on_top;
        }
    CHECK(on_top == 1);  // the one point where the curve leaves the axis
}

TEST_CASE("the capacity facts keep a gap between each label and its text") {
    test::TempDir dir;
    const RunAnalysis a = analysed(golden::crafted(), dir);
    const std::string html = capacity_html(a, model_capacity(a));
    CHECK(html.find("<b>Sizing guidance</b> Microsoft's") != std::string::npos);
    CHECK(html.find("</b>Microsoft") == std::string::npos);
}
