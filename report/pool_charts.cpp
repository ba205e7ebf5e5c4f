// The pool section's charts: every host's p95 frame interval against its own sessions on one
// chart, and scaling (hosts vs the pool's passing sessions, with the ideal line H x one host).
#include "report/pool_charts.h"

#include <algorithm>
#include <cmath>

#include "report/chart_style.h"

namespace seatmark::report {

using namespace chart;

std::string host_colour(size_t i) {
    static const char* palette[] = {"#6a1b9a", "#00838f", "#ad1457", "#558b2f", "#4e342e", "#37474f", "#ef6c00", "#1565c0"};
    return palette[i % (sizeof palette / sizeof *palette)];
}

std::string host_p95_chart(const RunAnalysis& a) {
    const double W = 580, H = 350, L = 60, R = 20, T = 44, B = 46;
    svg::Writer w(W, H, "p95 frame interval versus sessions on each host, one line per host, with the SLA line");
    const double sla_ms = a.default_sla.p95_interval_ms;
    double xmax = 1, vmax = 0;
    bool any = false;
    auto plotted = [&a](const HostStep& s, size_t i) { return s.judged && std::isfinite(s.verdict.p95_median_ms) && a.in_main_ramp(i); };
    for (const auto& h : a.pool.hosts)
        for (size_t i = 0; i < h.steps.size(); ++i)
            if (const HostStep& s = h.steps[i]; plotted(s, i)) {
                any = true;
                xmax = std::max(xmax, double(s.target));
                vmax = std::max(vmax, s.verdict.p95_median_ms);
            }
    if (!any) {
        empty_note(w, W, H, "no host measured a step");
        return w.finish();
    }
    const double ymax = svg::nice_top(std::max(vmax * 1.05, sla_ms * 1.15), 6);
    svg::Scale x{0, xmax + std::max(1.0, xmax * 0.06), L, W - R};
    svg::Scale y0{0, ymax, H - B, T};
    auto y = [&](double v) { return y0(std::min(v, ymax)); };
    y_axis(w, y0, svg::nice_ticks(0, ymax, 6), L, W - R, "p95 frame interval, ms (median session)", T, H - B);
    w.line(L, H - B, W - R, H - B, axis_colour, 1);
    for (double t : svg::nice_ticks(0, xmax, std::min(10, int(xmax) + 1))) {
        if (t != std::floor(t)) continue;  // sessions are whole
        w.line(x(t), H - B, x(t), H - B + 4, axis_colour, 1);
        w.text(x(t), H - B + 17, svg::tick_label(t), "middle", 11, label_colour);
    }
    w.text((L + W - R) / 2, H - 8, "sessions on the host", "middle", 12, label_colour);
    w.line(L, y(sla_ms), W - R, y(sla_ms), fail_colour, 1.5, "6 4");
    w.text(W - R - 4, y(sla_ms) - 5, "SLA p95 \u2264 " + num(sla_ms) + " ms", "end", 11, fail_colour,
           std::string("font-weight=\"600\" ") + halo);
    for (size_t k = 0; k < a.pool.hosts.size(); ++k) {
        const HostAnalysis& h = a.pool.hosts[k];
        const std::string c = host_colour(k);
        std::vector<std::pair<double, double>> pts;
        for (size_t i = 0; i < h.steps.size(); ++i)
            if (plotted(h.steps[i], i)) pts.push_back({x(h.steps[i].target), y(h.steps[i].verdict.p95_median_ms)});
        w.polyline(pts, c, 2.5);
        for (size_t i = 0; i < h.steps.size(); ++i) {
            const HostStep& s = h.steps[i];
            if (!plotted(s, i)) continue;
            std::string tip = h.host.hostname + ", step " + std::to_string(s.idx + 1) + ": " + std::to_string(s.target) +
                              " sessions, p95 " + num(s.verdict.p95_median_ms) + " ms, " +
                              (s.verdict.pass ? "pass" : "fail: " + (s.verdict.reasons.empty() ? "?" : s.verdict.reasons[0]));
            if (s.verdict.pass) w.circle(x(s.target), y(s.verdict.p95_median_ms), 5, c, "#fff", tip);
            else w.cross(x(s.target), y(s.verdict.p95_median_ms), 5, c, 2.5, tip);
        }
        // Legend: one swatch per host.
        const double lx = L + 8 + double(k % 4) * 125, ly = 14 + double(k / 4) * 16;
        w.line(lx, ly, lx + 18, ly, c, 3);
        w.text(lx + 23, ly + 4, h.host.hostname + (h.host.lost ? " (lost)" : ""), "start", 11, label_colour);
    }
    w.text(W - R, T - 6, "\u25cf pass  \u2715 fail", "end", 10.5, label_colour);
    return w.finish();
}

std::string scaling_chart(const RunAnalysis& a) {
    const double W = 580, H = 350, L = 60, R = 20, T = 44, B = 46;
    svg::Writer w(W, H, "scaling: hosts versus the pool's passing sessions, with the ideal line");
    const auto& pts = a.pool.scaling;
    uint32_t one = 0, hmax = 1, smax = 1;
    for (const auto& p : pts) {
        if (p.hosts == 1) one = p.max_sessions;
        hmax = std::max(hmax, p.hosts);
        smax = std::max(smax, p.max_sessions);
    }
    if (pts.empty()) {
        empty_note(w, W, H, "one host: no scaling");
        return w.finish();
    }
    const double top = svg::nice_top(std::max(double(smax), double(one) * hmax) * 1.1, 6);
    svg::Scale x{0, double(hmax) + 0.5, L, W - R};
    svg::Scale y{0, top, H - B, T};
    y_axis(w, y, svg::nice_ticks(0, top, 6), L, W - R, "passing sessions (pool)", T, H - B);
    w.line(L, H - B, W - R, H - B, axis_colour, 1);
    for (uint32_t h = 1; h <= hmax; ++h) {
        w.line(x(h), H - B, x(h), H - B + 4, axis_colour, 1);
        w.text(x(h), H - B + 17, std::to_string(h), "middle", 11, label_colour);
    }
    w.text((L + W - R) / 2, H - 8, "hosts", "middle", 12, label_colour);
    if (one > 0) {
        w.line(x(0), y(0), x(hmax), y(double(one) * hmax), "#9e9e9e", 1.5, "6 4");
        w.text(x(hmax) - 4, y(double(one) * hmax) - 8, "ideal: H \u00d7 " + std::to_string(one), "end", 11, "#757575", halo);
    }
    std::vector<std::pair<double, double>> line;
    for (const auto& p : pts) line.push_back({x(p.hosts), y(p.max_sessions)});
    w.polyline(line, blue, 2.5);
    for (const auto& p : pts) {
        const std::string e = std::isfinite(p.efficiency) ? num(p.efficiency, 2) : "n/a";
        w.circle(x(p.hosts), y(p.max_sessions), 5, blue, "#fff",
                 std::to_string(p.hosts) + " host(s): " + std::to_string(p.max_sessions) + " passing sessions, E = " + e);
        w.text(x(p.hosts) + 8, y(p.max_sessions) + 16, "E(" + std::to_string(p.hosts) + ") = " + e, "start", 11, blue,
               std::string("font-weight=\"600\" ") + halo);
    }
    if (a.pool.scaling_estimated())
        w.text(L + 6, T - 10, "1 host: the best host's own max density in this run (no [scaling] series)", "start", 10.5,
               label_colour);
    return w.finish();
}

}  // namespace seatmark::report
