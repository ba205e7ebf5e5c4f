#pragma once
// What the report's charts share: colours, the heat-map scale, axes and small helpers.
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/analysis.h"
#include "report/format.h"
#include "report/svg.h"

namespace seatmark::report::chart {

inline constexpr const char* pass_colour = "#2e7d32";
inline constexpr const char* fail_colour = "#c62828";
inline constexpr const char* blue = "#1565c0";
inline constexpr const char* knee_colour = "#e65100";
inline constexpr const char* grid_colour = "#e3e3e3";
inline constexpr const char* axis_colour = "#8a8a8a";
inline constexpr const char* label_colour = "#444";
// A white outline under annotation text keeps it readable where it crosses lines and points.
inline constexpr const char* halo = "paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\"";

// Heat-map buckets: upper edges as multiples of the SLA bound, and their colours.
inline constexpr double heat_edges[] = {0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 3.0};
inline constexpr const char* heat_colours[] = {"#006837", "#1a9850", "#66bd63", "#a6d96a", "#d9ef8b", "#fee08b",
                                               "#fdae61", "#f46d43", "#d73027", "#a50026", "#67001f"};

inline std::vector<const StepAnalysis*> measured_steps(const RunAnalysis& a) {
    std::vector<const StepAnalysis*> v;
    for (const auto& s : a.steps)
        if (!s.windows.empty()) v.push_back(&s);
    return v;
}

inline void empty_note(svg::Writer& w, double W, double H, const std::string& what) {
    w.rect(0.5, 0.5, W - 1, H - 1, "#fafafa", "stroke=\"#ddd\"");
    w.text(W / 2, H / 2, what, "middle", 14, "#777");
}

// Horizontal grid with labels on the left.
inline void y_axis(svg::Writer& w, const svg::Scale& y, const std::vector<double>& ticks, double x0, double x1,
                   const std::string& title, double top, double bottom) {
    for (double t : ticks) {
        w.line(x0, y(t), x1, y(t), grid_colour, 1);
        w.text(x0 - 6, y(t) + 4, svg::tick_label(t), "end", 11, label_colour);
    }
    w.line(x0, top, x0, bottom, axis_colour, 1);
    double cy = (top + bottom) / 2;
    w.text(14, cy, title, "middle", 12, label_colour,
           "transform=\"rotate(-90 14 " + svg::n(cy) + ")\"");
}

// Time axis ticks in seconds or minutes depending on the run's length.
inline void time_axis(svg::Writer& w, const svg::Scale& x, double total_s, double y, double height_for_grid) {
    bool minutes = total_s > 600;
    double unit = minutes ? 60 : 1;
    for (double t : svg::nice_ticks(0, total_s / unit, 10)) {
        double px = x(t * unit);
        if (height_for_grid > 0) w.line(px, y - height_for_grid, px, y, "#00000014", 1);
        w.line(px, y, px, y + 4, axis_colour, 1);
        w.text(px, y + 16, svg::tick_label(t) + (minutes ? " min" : " s"), "middle", 11, label_colour);
    }
}

// A value on a chart whose axis stops at `top_value` (pixel `top`): a circle where it lies or, above
// the axis, a triangle on the top edge with the value written beside it (left or right of the
// mark, so two marks at one x stay readable). Every chart that caps its axis draws its points here,
// so no value is ever drawn on the edge as if it were the axis' top. Returns whether it was off
// the scale (the caller then shows the legend's "off the scale" note).
struct PointStyle {
    double radius = 5;
    const char* fill = "#333";
    const char* stroke = "#fff";
    bool label_left = true;
};
inline bool plot_point(svg::Writer& w, double px, double value, const svg::Scale& y, double top_value, double top,
                       const PointStyle& st, const std::string& tip, const std::string& unit) {
    if (value <= top_value) {
        w.circle(px, y(value), st.radius, st.fill, st.stroke, tip);
        return false;
    }
    const char* c = std::string_view(st.fill) == "#fff" ? st.stroke : st.fill;  // a hollow point's colour is its ring
    w.triangle(px, top, 6, c, "#fff", tip);
    w.text(st.label_left ? px - 8 : px + 8, top + 16, num(value, 0) + unit, st.label_left ? "end" : "start", 10.5, c,
           std::string("font-weight=\"600\" ") + halo);
    return true;
}

// Baselines for the labels of two horizontal lines at pixel heights ya and yb (SVG y grows
// downwards): the upper line's label sits above it and the lower line's below it, so neither
// label lies on the other line however close the lines are.
inline std::pair<double, double> line_label_baselines(double ya, double yb, double size) {
    const double above = -5, below = size + 2;
    return ya <= yb ? std::pair{ya + above, yb + below} : std::pair{ya + below, yb + above};
}

inline std::string step_tip(const StepAnalysis& s) {
    return std::to_string(s.target) + " sessions: p95 " + num(s.verdict.p95_median_ms) + " ms (median), worst " +
           num(s.verdict.p95_worst_ms) + " ms; FPS " + num(s.verdict.fps_median) + "; " +
           (s.verdict.pass ? "pass" : "fail: " + (s.verdict.reasons.empty() ? std::string("?") : s.verdict.reasons[0]));
}

}  // namespace seatmark::report::chart
