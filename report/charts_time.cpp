// The time-line charts: the per-session heat map of frame interval, and host use over time.
#include <algorithm>
#include <cmath>

#include "report/chart_style.h"
#include "report/charts.h"

namespace seatmark::report {

using namespace chart;

std::string heat_colour(double p95_ms, double sla_ms) {
    double r = sla_ms > 0 ? p95_ms / sla_ms : 0;
    size_t i = 0;
    while (i < std::size(heat_edges) && r > heat_edges[i]) ++i;
    return heat_colours[i];
}

// ---- heat map -------------------------------------------------------------------------------

// A row's label: "s3 ci-tiny", with its host where sessions ran on several ("s3 h1 ci-tiny").
std::string heat_label(const HeatRow& row, bool hosts) {
    return "s" + std::to_string(row.session_id) + " " + (hosts ? row.host + " " : "") + row.profile;
}

std::string heatmap_chart(const RunAnalysis& a) {
    const size_t rows = a.heat.rows.size(), bins = a.heat.bins();
    const bool hosts = a.sessions_on_several_hosts();
    // The label column fits the longest label (11 px text, ~6.2 px a character), within limits.
    size_t longest = 0;
    for (const auto& row : a.heat.rows) longest = std::max(longest, heat_label(row, hosts).size());
    const double W = 1180, L = std::clamp(12 + 6.2 * double(longest), 92.0, 300.0), R = 20, T = 40;
    const double rh = rows ? std::clamp(440.0 / double(rows), 3.0, 16.0) : 16;
    const double plot_h = rh * double(std::max<size_t>(rows, 1));
    const double H = T + plot_h + 88;
    svg::Writer w(W, H, "per-session time line of p95 frame interval");
    if (rows == 0 || bins == 0) {
        empty_note(w, W, 120, "no session");
        return w.finish();
    }
    const double total_s = double(a.heat.bin_ns) * double(bins) * 1e-9;
    svg::Scale x{0, total_s, L, W - R};
    const double cw = (W - R - L) / double(bins);
    const double sla_ms = a.default_sla.p95_interval_ms;

    // Step bands and their labels above the rows.
    for (size_t k = 0; k < a.steps.size(); ++k) {
        const auto& s = a.steps[k];
        double x0 = x(a.seconds(s.started_ns));
        double x1 = k + 1 < a.steps.size() ? x(a.seconds(a.steps[k + 1].started_ns)) : x(a.seconds(std::max(s.ended_ns, s.started_ns)));
        if (k % 2 == 1) w.rect(x0, T - 16, std::max(0.0, x1 - x0), 16, "#eef2f7");
        w.text((x0 + x1) / 2, T - 4, std::to_string(s.target), "middle", 11,
               s.windows.empty() ? "#999" : (s.verdict.pass ? pass_colour : fail_colour), "font-weight=\"600\"");
    }
    w.text(L - 6, T - 4, "step:", "end", 11, label_colour);

    // Rows: the session's lifetime in light grey (think pauses stay grey), coloured cells on top.
    size_t label_every = rh >= 11 ? 1 : size_t(std::ceil(11.0 / rh));
    for (size_t r = 0; r < rows; ++r) {
        const HeatRow& row = a.heat.rows[r];
        double y0 = T + rh * double(r);
        double lx0 = x(a.seconds(row.started_ns)), lx1 = x(a.seconds(row.ended_ns));
        w.rect(lx0, y0, std::max(1.0, lx1 - lx0), rh - (rh > 5 ? 1 : 0), "#e4e4e4");
        if (r % label_every == 0)
            w.text(L - 6, y0 + rh / 2 + 4, heat_label(row, hosts), "end", std::min(11.0, rh), label_colour);
        // Run-length: neighbouring cells of one colour become one rectangle.
        size_t b = 0;
        while (b < bins) {
            float v = row.p95_ms[b];
            if (std::isnan(v)) {
                ++b;
                continue;
            }
            std::string c = heat_colour(v, sla_ms);
            size_t e = b + 1;
            float worst = v;
            while (e < bins && !std::isnan(row.p95_ms[e]) && heat_colour(row.p95_ms[e], sla_ms) == c) {
                worst = std::max(worst, row.p95_ms[e]);
                ++e;
            }
            std::string tip = "session " + std::to_string(row.session_id) + (hosts ? " on " + row.host : "") + ", " +
                              svg::tick_label(std::round(double(b) * total_s / double(bins))) + "-" +
                              svg::tick_label(std::round(double(e) * total_s / double(bins))) + " s: p95 up to " +
                              num(worst) + " ms";
            w.rect(L + cw * double(b), y0, cw * double(e - b) + 0.3, rh - (rh > 5 ? 1 : 0), c, {}, tip);
            b = e;
        }
        if (!row.failure.empty()) {
            double fx = x(a.seconds(row.ended_ns));
            w.cross(fx, y0 + rh / 2, std::min(5.0, rh / 2 + 1), "#111", 2.2,
                    "session " + std::to_string(row.session_id) + " failed: " + row.failure);
            if (rh >= 9)
                w.text(fx + 7, y0 + rh / 2 + 4, row.failure, "start", 10.5, "#111", std::string("font-weight=\"700\" ") + halo);
        }
    }
    // Step boundaries over the rows.
    for (const auto& s : a.steps) {
        double px = x(a.seconds(s.started_ns));
        w.line(px, T - 16, px, T + plot_h, "#37474f", 1, "3 2");
    }
    const double axis_y = T + plot_h + 2;
    w.line(L, axis_y, W - R, axis_y, axis_colour, 1);
    time_axis(w, x, total_s, axis_y, 0);
    w.text((L + W - R) / 2, axis_y + 32, "time since the run started", "middle", 12, label_colour);

    // Legend: the colour steps against the SLA bound.
    double lx = 20, ly = H - 26;
    w.text(lx, ly + 10, "p95 per bin, ms:", "start", 11, label_colour);
    lx += 94;
    double prev = 0;
    for (size_t i = 0; i < std::size(heat_colours); ++i) {
        w.rect(lx, ly, 48, 13, heat_colours[i]);
        std::string lab = i < std::size(heat_edges) ? "\u2264 " + svg::tick_label(std::round(heat_edges[i] * sla_ms * 10) / 10)
                                                    : "> " + svg::tick_label(std::round(prev * 10) / 10);
        if (i < std::size(heat_edges)) prev = heat_edges[i] * sla_ms;
        w.text(lx + 24, ly + 25, lab, "middle", 10, label_colour);
        lx += 50;
    }
    w.text(lx + 6, ly + 10, "(SLA p95 bound " + num(sla_ms) + " ms)", "start", 11, label_colour);
    lx += 170;
    w.rect(lx, ly, 20, 13, "#e4e4e4");
    w.text(lx + 25, ly + 10, "no frames (think pause)", "start", 11, label_colour);
    lx += 160;
    w.cross(lx + 6, ly + 6, 5, "#111", 2.2);
    w.text(lx + 16, ly + 10, "session failed", "start", 11, label_colour);
    return w.finish();
}

// ---- host time line ---------------------------------------------------------------------------

std::string timeline_chart(const RunAnalysis& a) {
    const double W = 1180, H = 300, L = 60, R = 20, T = 46, B = 44;
    svg::Writer w(W, H, "host CPU over time with steps as bands and failures marked");
    const double total_s = std::max(1.0, a.seconds(a.t1_ns));
    svg::Scale x{0, total_s, L, W - R};
    double ymax = 100;
    for (const auto& s : a.host_series)
        for (const auto& p : s.points) ymax = std::max(ymax, p.v);
    ymax = svg::nice_top(ymax, 5);
    svg::Scale y{0, ymax, H - B, T};

    // Steps: bands from start to end, measurement windows tinted by verdict.
    for (size_t k = 0; k < a.steps.size(); ++k) {
        const auto& s = a.steps[k];
        double x0 = x(a.seconds(s.started_ns));
        double x1 = k + 1 < a.steps.size() ? x(a.seconds(a.steps[k + 1].started_ns)) : x(a.seconds(std::max(s.ended_ns, s.started_ns)));
        w.rect(x0, T, std::max(0.0, x1 - x0), H - B - T, k % 2 ? "#f1f4f8" : "#f8fafc");
        for (const auto& win : s.windows)
            w.rect(x(a.seconds(win.start_ns)), T, x(a.seconds(win.end_ns)) - x(a.seconds(win.start_ns)), H - B - T,
                   win.verdict.pass ? "#2e7d3222" : "#c6282826", {},
                   "step " + std::to_string(s.idx + 1) + ", window " + std::to_string(win.repeat + 1) + ": " +
                       (win.verdict.pass ? "pass" : "fail"));
        w.text((x0 + x1) / 2, T - 6, std::to_string(s.target), "middle", 11,
               s.windows.empty() ? "#999" : (s.verdict.pass ? pass_colour : fail_colour), "font-weight=\"600\"");
        w.line(x0, T, x0, H - B, "#90a4ae", 1, "3 2");
    }
    w.text(L - 6, T - 6, "step:", "end", 11, label_colour);
    y_axis(w, y, svg::nice_ticks(0, ymax, 5), L, W - R, "use, %", T, H - B);
    w.line(L, H - B, W - R, H - B, axis_colour, 1);
    time_axis(w, x, total_s, H - B, 0);
    w.text((L + W - R) / 2, H - 6, "time since the run started", "middle", 12, label_colour);

    // Series, averaged into about one point per pixel.
    // Enough for a line per metric on four hosts before a colour repeats.
    const char* colours[] = {blue, "#6a1b9a", "#00838f", "#e65100", "#2e7d32", "#ad1457", "#5d4037", "#455a64"};
    constexpr size_t n_colours = sizeof colours / sizeof colours[0];
    for (size_t i = 0; i < a.host_series.size(); ++i) {
        const auto& s = a.host_series[i];
        std::vector<std::pair<double, double>> pts;
        double bucket_px = -1, sum = 0, sx = 0;
        int n = 0;
        for (const auto& p : s.points) {
            double px = std::floor(x(p.t_s));
            if (px != bucket_px && n) {
                pts.push_back({sx / n, y(sum / n)});
                sum = sx = 0;
                n = 0;
            }
            bucket_px = px;
            sum += p.v;
            sx += x(p.t_s);
            ++n;
        }
        if (n) pts.push_back({sx / n, y(sum / n)});
        w.polyline(pts, colours[i % n_colours], 1.8);
    }
    if (a.host_series.empty()) w.text((L + W - R) / 2, (T + H - B) / 2, "no host samples recorded", "middle", 13, "#777");

    // Failures.
    for (const auto& m : a.marks) {
        double px = x(m.t_s);
        std::string who = m.session_id ? "s" + std::to_string(*m.session_id) + " " : "";
        w.line(px, T, px, H - B, fail_colour, 1.5);
        w.cross(px, T + 8, 5, fail_colour, 2.2, who + m.kind + (m.detail.empty() ? "" : ": " + m.detail));
        w.text(px + 7, T + 12, who + m.kind, "start", 10.5, fail_colour, std::string("font-weight=\"700\" ") + halo);
    }

    // Legend: the lines (a pool's hosts may need a second row), then the marks.
    double lx = L, ly = 14;
    for (size_t i = 0; i < a.host_series.size(); ++i) {
        const auto& s = a.host_series[i];
        std::string lab = s.label + " % (" + s.source + ")";
        const double width = 40 + 6.2 * double(lab.size());
        if (lx + width > W - R && lx > L && ly < 28) lx = L, ly += 16;
        w.line(lx, ly, lx + 22, ly, colours[i % n_colours], 2);
        w.text(lx + 27, ly + 4, lab, "start", 11, label_colour);
        lx += width;
    }
    if (lx + 440 > W - R && lx > L && ly < 28) lx = L, ly += 16;
    w.rect(lx, ly - 6, 18, 12, "#2e7d3233");
    w.rect(lx + 20, ly - 6, 18, 12, "#c6282833");
    w.text(lx + 44, ly + 4, "measurement window (pass / fail)", "start", 11, label_colour);
    lx += 250;
    w.cross(lx + 6, ly, 5, fail_colour, 2.2);
    w.text(lx + 16, ly + 4, "session failure / run event", "start", 11, label_colour);
    return w.finish();
}

}  // namespace seatmark::report
