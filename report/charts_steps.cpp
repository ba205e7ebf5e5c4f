// The per-step charts: p95 frame interval vs sessions, and the distribution of per-session FPS.
#include <algorithm>
#include <cmath>

#include "core/stats.h"
#include "report/chart_style.h"
#include "report/charts.h"

namespace seatmark::report {

using namespace chart;

// ---- p95 vs sessions ----------------------------------------------------------------------

std::string p95_chart(const RunAnalysis& a) {
    const double W = 580, H = 350, L = 60, R = 20, T = 44, B = 46;
    svg::Writer w(W, H, "p95 frame interval versus sessions, with the SLA line and the knee");
    auto steps = measured_steps(a);
    if (steps.empty()) {
        empty_note(w, W, H, "no measured step");
        return w.finish();
    }
    const double sla_ms = a.default_sla.p95_interval_ms;
    double xmax = 1, vmax = 0;
    for (auto* s : steps) {
        xmax = std::max(xmax, double(s->target));
        if (std::isfinite(s->verdict.p95_worst_ms)) vmax = std::max(vmax, s->verdict.p95_worst_ms);
        if (s->p95_ci.available()) vmax = std::max(vmax, s->p95_ci.hi);
    }
    // Far above the SLA the exact height matters less than seeing the SLA region: the axis stops
    // at 4x the bound and points beyond it sit on the top edge with their value written.
    double ymax = std::max({vmax * 1.05, sla_ms * 1.15, a.knee.has_baseline ? a.knee.threshold_ms * 1.1 : 0.0});
    const double cap = std::max(sla_ms * 4, a.knee.has_baseline ? a.knee.threshold_ms * 2 : 0.0);
    ymax = svg::nice_top(std::min(ymax, cap), 6);
    svg::Scale x{0, xmax + std::max(1.0, xmax * 0.06), L, W - R};
    svg::Scale y0{0, ymax, H - B, T};
    auto y = [&](double v) { return y0(std::min(v, ymax)); };

    // Passing region: up to max density.
    if (a.max_density > 0) {
        w.rect(x(0), T, x(a.max_density) - x(0), H - B - T, "#e8f5e9");
        w.text(x(0) + 6, T + 14, "passing: up to " + std::to_string(a.max_density), "start", 11, pass_colour,
               "font-weight=\"600\"");
    }
    y_axis(w, y0, svg::nice_ticks(0, ymax, 6), L, W - R, "p95 frame interval, ms", T, H - B);
    // x axis: a tick per step.
    w.line(L, H - B, W - R, H - B, axis_colour, 1);
    size_t every = std::max<size_t>(1, steps.size() / 14 + 1);
    for (size_t i = 0; i < steps.size(); ++i) {
        double px = x(steps[i]->target);
        w.line(px, H - B, px, H - B + 4, axis_colour, 1);
        if (i % every == 0 || i + 1 == steps.size())
            w.text(px, H - B + 17, std::to_string(steps[i]->target), "middle", 11,
                   steps[i]->verdict.pass ? label_colour : fail_colour);
    }
    w.text((L + W - R) / 2, H - 8, "sessions on the host", "middle", 12, label_colour);

    // SLA and knee threshold: each label on the side of its line away from the other line.
    const auto [sla_label_y, knee_label_y] =
        line_label_baselines(y(sla_ms), a.knee.has_baseline ? y(a.knee.threshold_ms) : H, 11);
    w.line(L, y(sla_ms), W - R, y(sla_ms), fail_colour, 1.5, "6 4");
    w.text(W - R - 4, sla_label_y, "SLA p95 \u2264 " + num(sla_ms) + " ms", "end", 11, fail_colour,
           std::string("font-weight=\"600\" ") + halo);
    if (a.knee.has_baseline) {
        w.line(L, y(a.knee.threshold_ms), W - R, y(a.knee.threshold_ms), knee_colour, 1, "2 3");
        w.text(W - R - 4, knee_label_y,
               "knee threshold " + num(a.knee.threshold_ms) + " ms (baseline +" + num(a.knee.margin_pct, 0) + " %)", "end",
               10.5, knee_colour, halo);
        if (a.knee.step) {
            double kx = x(a.steps[*a.knee.step].target);
            w.line(kx, T, kx, H - B, knee_colour, 1.5, "5 3");
            w.text(kx + 4, T + 28, "knee: " + std::to_string(a.steps[*a.knee.step].target), "start", 11, knee_colour,
                   std::string("font-weight=\"600\" ") + halo);
        }
    }

    // Worst session, then the median over sessions, then the CI whiskers. A value above the axis
    // is a triangle on the top edge with its value (plot_point); a whisker above it ends at the
    // edge without a cap.
    bool off_scale = false;
    std::vector<std::pair<double, double>> worst, med;
    for (auto* s : steps) {
        if (std::isfinite(s->verdict.p95_worst_ms) && !s->verdict.sessions.empty())
            worst.push_back({x(s->target), y(s->verdict.p95_worst_ms)});
        if (std::isfinite(s->verdict.p95_median_ms)) med.push_back({x(s->target), y(s->verdict.p95_median_ms)});
    }
    w.polyline(worst, "#9e9e9e", 1.5, "4 3");
    for (auto* s : steps)
        if (std::isfinite(s->verdict.p95_worst_ms) && !s->verdict.sessions.empty())
            off_scale |= plot_point(w, x(s->target), s->verdict.p95_worst_ms, y0, ymax, T, {3, "#fff", "#9e9e9e", false},
                                    std::to_string(s->target) + " sessions: worst session's p95 " +
                                        num(s->verdict.p95_worst_ms) + " ms",
                                    " ms");
    for (auto* s : steps)
        if (s->p95_ci.available()) {
            double px = x(s->target);
            w.line(px, y(s->p95_ci.lo), px, y(s->p95_ci.hi), blue, 1.5);
            w.line(px - 4, y(s->p95_ci.lo), px + 4, y(s->p95_ci.lo), blue, 1.5);
            if (s->p95_ci.hi <= ymax) w.line(px - 4, y(s->p95_ci.hi), px + 4, y(s->p95_ci.hi), blue, 1.5);
            else off_scale = true;
        }
    w.polyline(med, blue, 2.5);
    for (auto* s : steps) {
        double v = s->verdict.p95_median_ms;
        if (!std::isfinite(v)) continue;
        off_scale |= plot_point(w, x(s->target), v, y0, ymax, T,
                                {5, s->verdict.pass ? pass_colour : fail_colour, "#fff", true}, step_tip(*s), " ms");
    }
    if (off_scale) w.text(W - R, T - 8, "\u25b2 = off the scale, value written beside it", "end", 10.5, label_colour);

    // Legend.
    double lx = L;
    w.circle(lx + 5, 14, 5, pass_colour);
    w.circle(lx + 17, 14, 5, fail_colour);
    w.text(lx + 27, 18, "median session (pass / fail)", "start", 11, label_colour);
    lx += 200;
    w.line(lx, 14, lx + 22, 14, "#9e9e9e", 1.5, "4 3");
    w.text(lx + 27, 18, "worst session", "start", 11, label_colour);
    lx += 108;
    w.line(lx + 8, 8, lx + 8, 20, blue, 1.5);
    w.text(lx + 16, 18, "95 % CI over windows", "start", 11, label_colour);
    return w.finish();
}

// ---- FPS distribution per step -----------------------------------------------------------------

std::string fps_chart(const RunAnalysis& a) {
    const double W = 580, H = 350, L = 60, R = 20, T = 44, B = 46;
    svg::Writer w(W, H, "distribution of per-session FPS in each step");
    auto steps = measured_steps(a);
    if (steps.empty()) {
        empty_note(w, W, H, "no measured step");
        return w.finish();
    }
    double ymax = 1;
    for (auto* s : steps)
        for (const auto& f : s->verdict.sessions)
            if (std::isfinite(f.summary.fps)) ymax = std::max(ymax, f.summary.fps);
    ymax = svg::nice_top(ymax * 1.05, 6);
    svg::Scale y{0, ymax, H - B, T};
    const double band = (W - R - L) / double(steps.size());
    y_axis(w, y, svg::nice_ticks(0, ymax, 6), L, W - R, "FPS per session", T, H - B);
    w.line(L, H - B, W - R, H - B, axis_colour, 1);
    size_t every = std::max<size_t>(1, steps.size() / 14 + 1);
    for (size_t i = 0; i < steps.size(); ++i) {
        const StepAnalysis& s = *steps[i];
        double cx = L + band * (double(i) + 0.5);
        if (i % 2 == 1) w.rect(L + band * double(i), T, band, H - B - T, "#00000008");
        if (i % every == 0 || i + 1 == steps.size())
            w.text(cx, H - B + 17, std::to_string(s.target), "middle", 11, s.verdict.pass ? label_colour : fail_colour);
        std::vector<double> fps;
        for (const auto& f : s.verdict.sessions)
            if (f.summary.frames > 0 && std::isfinite(f.summary.fps)) fps.push_back(f.summary.fps);
        if (fps.empty()) continue;
        double q1 = stats::percentile_nearest_rank(fps, 25), q2 = stats::median(fps),
               q3 = stats::percentile_nearest_rank(fps, 75);
        double lo = *std::min_element(fps.begin(), fps.end()), hi = *std::max_element(fps.begin(), fps.end());
        double bw = std::min(band * 0.55, 46.0);
        std::string tip = std::to_string(s.target) + " sessions: FPS median " + num(q2) + ", quartiles " + num(q1) + ".." +
                          num(q3) + ", range " + num(lo) + ".." + num(hi) + ", fairness " + num(s.verdict.fairness, 3);
        w.line(cx, y(hi), cx, y(q3), "#546e7a", 1.2);
        w.line(cx, y(q1), cx, y(lo), "#546e7a", 1.2);
        w.line(cx - bw / 4, y(hi), cx + bw / 4, y(hi), "#546e7a", 1.2);
        w.line(cx - bw / 4, y(lo), cx + bw / 4, y(lo), "#546e7a", 1.2);
        w.rect(cx - bw / 2, y(q3), bw, std::max(1.0, y(q1) - y(q3)), s.verdict.pass ? "#c8e6c9" : "#ffcdd2",
               std::string("stroke=\"") + (s.verdict.pass ? pass_colour : fail_colour) + "\" stroke-width=\"1.2\"", tip);
        w.line(cx - bw / 2, y(q2), cx + bw / 2, y(q2), "#263238", 2.5);
        // Every session as a dot, spread sideways; failed sessions as crosses.
        for (size_t k = 0; k < s.verdict.sessions.size(); ++k) {
            const auto& f = s.verdict.sessions[k];
            if (f.summary.frames == 0 || !std::isfinite(f.summary.fps)) continue;
            double jitter = (double((f.id * 7919u) % 101) / 100.0 - 0.5) * bw * 0.8;
            std::string t = "session " + std::to_string(f.id) + ": " + num(f.summary.fps) + " FPS, p95 " +
                            num(f.summary.p95_ms) + " ms" + (f.failure.empty() ? "" : ", " + f.failure);
            if (!f.failure.empty()) w.cross(cx + jitter, y(f.summary.fps), 4, fail_colour, 2, t);
            else
                w.circle(cx + jitter, y(f.summary.fps), 2.6,
                         f.violations.empty() ? "#37474fb0" : "#c62828d0", {}, t);
        }
    }
    w.text((L + W - R) / 2, H - 8, "sessions on the host (one box per step)", "middle", 12, label_colour);
    double lx = L;
    w.rect(lx, 8, 18, 12, "#c8e6c9", std::string("stroke=\"") + pass_colour + "\"");
    w.rect(lx + 22, 8, 18, 12, "#ffcdd2", std::string("stroke=\"") + fail_colour + "\"");
    w.text(lx + 46, 18, "quartiles, median line, whiskers min..max", "start", 11, label_colour);
    lx += 290;
    w.circle(lx + 4, 14, 3, "#37474f");
    w.circle(lx + 14, 14, 3, fail_colour);
    w.text(lx + 22, 18, "session (ok / over SLA)", "start", 11, label_colour);
    return w.finish();
}

}  // namespace seatmark::report
