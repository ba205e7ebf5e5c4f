#include "report/html_capacity.h"

#include <algorithm>
#include <cmath>

#include "report/chart_style.h"
#include "report/format.h"

namespace seatmark::report {

using namespace chart;

namespace {

std::string e(const std::string& s) { return html_escape(s); }

struct Frame {
    double W = 560, H = 330, L = 62, R = 18, T = 30, B = 46;
};

// Axes for a chart of sessions (x) against a value (y), both from 0.
void axes(svg::Writer& w, const Frame& f, const svg::Scale& x, const svg::Scale& y, double xmax, double ymax,
          const std::string& ytitle) {
    y_axis(w, y, svg::nice_ticks(0, ymax, 6), f.L, f.W - f.R, ytitle, f.T, f.H - f.B);
    w.line(f.L, f.H - f.B, f.W - f.R, f.H - f.B, axis_colour, 1);
    for (double t : svg::nice_ticks(0, xmax, 8)) {
        w.line(x(t), f.H - f.B, x(t), f.H - f.B + 4, axis_colour, 1);
        w.text(x(t), f.H - f.B + 17, svg::tick_label(t), "middle", 11, label_colour);
    }
    w.text((f.L + f.W - f.R) / 2, f.H - 8, "sessions on the host", "middle", 12, label_colour);
}

// A fitted curve over [1, xmax]: solid over the measured range, dashed beyond it (extrapolation),
// drawn only where it lies on the chart. Where it leaves the axis [0, ymax] it ends at the edge
// (the crossing point interpolated) rather than running flat along it, which would read as a
// prediction that the value stops growing.
template <class Y, class F>
void curve(svg::Writer& w, const svg::Scale& x, const Y& y, double ymax, double xmeas, double xmax, F fn,
           const char* colour) {
    std::vector<std::pair<double, double>> piece;
    bool piece_dashed = false;
    auto flush = [&] {
        if (piece.size() >= 2) w.polyline(piece, colour, piece_dashed ? 2 : 2.2, piece_dashed ? "5 4" : "");
        piece.clear();
    };
    auto on_chart = [&](double v) { return std::isfinite(v) && v >= 0 && v <= ymax; };
    const int n = 120;
    double ps = 0, pv = NAN;
    for (int i = 0; i <= n; ++i) {
        const double s = 1 + (xmax - 1) * i / n, v = fn(s);
        const bool dashed = s > xmeas, in = on_chart(v), was_in = on_chart(pv);
        if (i > 0 && in != was_in && std::isfinite(v) && std::isfinite(pv)) {
            const double outside = was_in ? v : pv, edge = outside > ymax ? ymax : 0;
            const double se = ps + (edge - pv) / (v - pv) * (s - ps);
            if (was_in) {
                piece.push_back({x(se), y(edge)});
                flush();
            } else {
                piece_dashed = se > xmeas;
                piece.push_back({x(se), y(edge)});
            }
        }
        if (in) {
            if (piece.empty()) piece_dashed = dashed;
            if (dashed != piece_dashed) {  // the measured range ends here: the dashed part starts where the solid one ends
                const auto last = piece.back();
                flush();
                piece_dashed = dashed;
                piece.push_back(last);
            }
            piece.push_back({x(s), y(v)});
        } else if (!std::isfinite(v)) {
            flush();
        }
        ps = s, pv = v;
    }
    flush();
}

}  // namespace

std::string usl_chart(const CapacityAnalysis& c) {
    Frame f;
    svg::Writer w(f.W, f.H, "delivered frames per second against sessions, measured and the USL fit");
    if (c.fps_points.empty()) {
        empty_note(w, f.W, f.H, "no window delivered frames");
        return w.finish();
    }
    double xmeas = 1, ymax = 0;
    for (const auto& p : c.fps_points) xmeas = std::max(xmeas, p.sessions), ymax = std::max(ymax, p.value);
    double xmax = xmeas * 1.25 + 1;
    if (c.usl.ok)
        for (int i = 0; i <= 50; ++i) ymax = std::max(ymax, c.usl.predict(1 + (xmax - 1) * i / 50));
    ymax = svg::nice_top(ymax * 1.08, 6);
    svg::Scale x{0, xmax, f.L, f.W - f.R}, y{0, ymax, f.H - f.B, f.T};
    axes(w, f, x, y, xmax, ymax, "delivered FPS (all sessions)");
    if (c.usl.ok) {
        // Linear scaling for reference: lambda x N.
        double xl = std::min(xmax, ymax / c.usl.lambda);
        w.line(x(0), y(0), x(xl), y(c.usl.lambda * xl), "#9e9e9e", 1, "2 3");
        w.text(x(xl) - 4, y(c.usl.lambda * xl) + 14, "linear: \u03bbN", "end", 10.5, "#777", halo);
        curve(w, x, y, ymax, xmeas, xmax, [&](double n) { return c.usl.predict(n); }, blue);
        if (auto peak = c.usl.peak_sessions(); peak && *peak <= xmax) {
            w.line(x(*peak), f.T, x(*peak), f.H - f.B, knee_colour, 1.2, "4 3");
            w.text(x(*peak) + 4, f.T + 12, "peak N* " + num(*peak, 1), "start", 11, knee_colour, halo);
        }
    }
    for (const auto& p : c.fps_points)
        w.circle(x(p.sessions), y(p.value), 3.5, "#263238", "#fff", num(p.sessions, 0) + " sessions: " + num(p.value, 1) + " FPS");
    w.text(f.L + 6, f.T - 10, "\u25cf measured window   \u2014 USL fit (dashed: extrapolation)", "start", 11, label_colour);
    return w.finish();
}

std::string p95_fit_chart(const CapacityAnalysis& c) {
    Frame f;
    svg::Writer w(f.W, f.H, "worst session's p95 frame interval against sessions, the fit and the predicted SLA crossing");
    const auto& p = c.crossing;
    if (c.p95_points.empty()) {
        empty_note(w, f.W, f.H, "no window with frame intervals");
        return w.finish();
    }
    double xmeas = 1, vmax = 0;
    for (const auto& q : c.p95_points) xmeas = std::max(xmeas, q.sessions), vmax = std::max(vmax, q.value);
    double xmax = xmeas * 1.25 + 1;
    if (p.crossing) xmax = std::max(xmax, std::min(*p.crossing * 1.15, xmeas * 4));
    if (p.ci_available && p.ci_hi) xmax = std::max(xmax, std::min(*p.ci_hi * 1.05, xmeas * 4));
    double ymax = svg::nice_top(std::min(std::max(vmax, p.bound_ms) * 1.15, std::max(p.bound_ms * 3, vmax * 1.05)), 6);
    svg::Scale x{0, xmax, f.L, f.W - f.R}, y0{0, ymax, f.H - f.B, f.T};
    auto y = [&](double v) { return y0(std::min(v, ymax)); };
    // The bootstrap interval of the crossing as a band.
    if (p.ci_available) {
        double hi = p.ci_hi ? std::min(*p.ci_hi, xmax) : xmax;
        w.rect(x(p.ci_lo), f.T, std::max(1.0, x(hi) - x(p.ci_lo)), f.H - f.B - f.T, "#1565c01c", {},
               "95 % bootstrap interval of the crossing");
    }
    axes(w, f, x, y0, xmax, ymax, c.p95_relative ? "worst p95, % of SLA bound" : "worst p95 frame interval, ms");
    w.line(f.L, y(p.bound_ms), f.W - f.R, y(p.bound_ms), fail_colour, 1.5, "6 4");
    w.text(f.W - f.R - 4, y(p.bound_ms) - 5, "SLA bound " + num(p.bound_ms, 1), "end", 11, fail_colour, halo);
    if (p.ok) {
        curve(w, x, [&](double v) { return y(v); }, ymax, xmeas, xmax, [&](double n) { return p.fit.predict(n); }, blue);
        if (p.crossing && *p.crossing <= xmax) {
            w.circle(x(*p.crossing), y(p.bound_ms), 5.5, "#fff", knee_colour, "predicted crossing " + num(*p.crossing, 1));
            w.text(x(*p.crossing) + 7, y(p.bound_ms) + 16,
                   "crossing " + num(*p.crossing, 1) + (p.extrapolated ? " (extrapolated)" : ""), "start", 11, knee_colour,
                   std::string("font-weight=\"600\" ") + halo);
        }
    }
    for (const auto& q : c.p95_points)
        w.circle(x(q.sessions), y(q.value), 3.5, q.value <= p.bound_ms ? pass_colour : fail_colour, "#fff",
                 num(q.sessions, 0) + " sessions: " + num(q.value, 1));
    w.text(f.L + 6, f.T - 10, "\u25cf window   \u2014 fit (dashed: extrapolation)   band: crossing's 95 % interval", "start", 11,
           label_colour);
    return w.finish();
}

std::string bottleneck_html(const RunAnalysis& a) {
    std::string h = "<h2>What ran out</h2>";
    if (!a.bottleneck_step) return h + "<div class=\"facts\">No measured step: nothing to attribute.</div>\n";
    const auto& top = a.steps[*a.bottleneck_step].attribution;
    h += "<div class=\"banner warn\">" + e(top.headline) + ".</div>";
    h += "<div class=\"facts\"><div><b>Frames</b> " + e(top.frames_text) + "</div>";
    for (const auto& c : top.context) h += "<div><b>Context</b> " + e(c) + "</div>";
    for (const auto& n : top.not_judged) h += "<div><b>Not judged</b> " + e(n.name) + ": " + e(n.why) + "</div>";
    h += "</div>\n<table><thead><tr><th>sessions</th><th class=\"l\">binding resource</th><th class=\"l\">next</th>"
         "<th class=\"l\">frames</th></tr></thead><tbody>";
    for (const auto& s : a.steps) {
        if (s.windows.empty()) continue;
        const auto& t = s.attribution;
        std::string bind = t.binding ? "<b>" + e(t.resources[*t.binding].name) + "</b> " + e(t.resources[*t.binding].figure) +
                                           " <span class=\"muted\">(" + e(t.resources[*t.binding].source) + ")</span>"
                                     : "<span class=\"muted\">not judged</span>";
        std::string next;
        int shown = 0;
        for (size_t i = 0; i < t.resources.size() && shown < 3; ++i) {
            if (t.binding && i == *t.binding) continue;
            next += (shown++ ? ", " : "") + e(t.resources[i].name) + " " + num(t.resources[i].busy_pct, 0) + " %";
        }
        h += std::string("<tr") + (s.verdict.pass ? "" : " class=\"fail\"") + ">" + "<td>" + std::to_string(s.target) +
             "</td><td class=\"l\">" + bind + "</td><td class=\"l\">" + next + "</td><td class=\"l\">" +
             e(core::to_string(t.frames)) + "</td></tr>";
    }
    h += "</tbody></table>\n";
    return h;
}

std::string search_text(const RunAnalysis& a) {
    const SearchReport& r = a.search;
    if (!r.adaptive) return "";
    std::string t = "adaptive search " + std::to_string(r.config.min) + ".." + std::to_string(r.config.max) + " at resolution " +
                    std::to_string(r.config.resolution) + ": " + r.answer.text;
    if (r.time.linear_s > 0)
        t += "; machine time " + num(r.time.spent_s, 0) + " s against about " + num(r.time.linear_s, 0) + " s for a linear ramp of " +
             std::to_string(r.time.linear_steps) + " steps at the same resolution (" + num(100 * r.time.saved_share(), 0) +
             " % saved; from the probes' own durations)";
    return t;
}

std::string search_html(const RunAnalysis& a) {
    const SearchReport& r = a.search;
    if (!r.adaptive) return "";
    std::string h = "<h2>Adaptive search</h2><div class=\"facts\"><div><b>Answer</b> " + e(search_text(a)) + ".</div></div>";
    h += "<table><thead><tr><th>probe</th><th>sessions</th><th class=\"l\">why</th><th>windows</th>"
         "<th>SLA load<div class=\"muted\">mean (95 % CI)</div></th><th class=\"l\">verdict</th><th>time s</th></tr></thead><tbody>";
    for (size_t i = 0; i < r.probes.size(); ++i) {
        const auto& p = r.probes[i];
        const auto& d = p.decision;
        const bool pass = d.state == core::ProbeState::pass;
        h += std::string("<tr") + (pass ? "" : " class=\"fail\"") + "><td>" + std::to_string(i + 1) + "</td><td><b>" +
             std::to_string(p.sessions) + "</b></td><td class=\"l\">" + e(p.why) + "</td><td>" + std::to_string(d.windows) +
             "</td><td>" + num(d.mean, 3) + " (" + num(d.lo, 3) + "\u2013" + num(d.hi, 3) + ")</td><td class=\"l\"><b>" +
             core::to_string(d.state) + "</b><div class=\"muted\">" + e(d.detail) + "</div></td><td>" +
             num(double(p.ended_ns - p.started_ns) * 1e-9, 1) + "</td></tr>";
    }
    h += "</tbody></table>\n";
    return h;
}

std::string capacity_html(const RunAnalysis& a, const CapacityAnalysis& c) {
    std::string h = "<h2>Capacity model</h2><div class=\"facts\">";
    h += "<div><b>Throughput</b> " + e(usl_text(c)) + ".</div>";
    h += "<div><b>SLA crossing</b> " + e(crossing_text(c)) + ".</div>";
    h += "<div><b>Measured</b> max density " + std::to_string(a.max_density) + " (every step up to it passed)" +
         (c.crossing.predicted_max ? "; the fit predicts " + std::to_string(*c.crossing.predicted_max) : std::string()) +
         ".</div>";
    if (const std::string d = density_agreement(a, c); !d.empty()) h += "<div><b>Why they differ</b> " + e(d) + ".</div>";
    h += "</div>\n<div class=\"grid2\">";
    h += "<figure><h3>Delivered FPS vs sessions: measured and USL fit</h3>" + usl_chart(c) +
         "<figcaption>Sum of the sessions' FPS per measurement window (dots) and the Universal Scalability Law "
         "X(N) = \u03bbN / (1 + \u03c3(N\u22121) + \u03baN(N\u22121)) fitted to them (Levenberg-Marquardt). \u03c3: contention, "
         "\u03ba: coherency; dashed beyond the measured sessions.</figcaption></figure>";
    h += "<figure><h3>Worst p95 vs sessions: fit and predicted SLA crossing</h3>" + p95_fit_chart(c) + "<figcaption>" +
         e(c.p95_label) +
         " per window, the fit a + b(N\u22121) + cN(N\u22121) (b, c \u2265 0), the SLA bound and where the fit crosses it; the band is "
         "its 95 % bootstrap interval (windows resampled with replacement).</figcaption></figure></div>\n";

    h += "<h2>Cost and sizing</h2><div class=\"facts\">";
    if (c.cost.empty()) {
        h += "<div><b>Cost</b> not computed: the plan has no [cost] host_per_hour.</div>";
    } else {
        for (const auto& l : c.cost)
            h += "<div><b>Cost " + e(l.scope) + "</b> " + num(l.per_hour, 2) + " " + e(c.currency) + " per hour / " +
                 std::to_string(l.users) + " users = " +
                 (l.per_user_hour ? "<b>" + num(*l.per_user_hour, 3) + " " + e(c.currency) + " per user-hour</b>"
                                  : std::string("n/a")) +
                 "</div>";
        if (!c.cost_note.empty()) h += "<div><b>Note</b> " + e(c.cost_note) + "</div>";
    }
    if (!c.tiers.empty()) {
        std::string t;
        for (const auto& tier : c.tiers)
            t += (t.empty() ? "" : ", ") + tier.name + " " + std::to_string(tier.users) + " (" + std::to_string(tier.users_per_vcpu) + "/vCPU)";
        h += "<div><b>Sizing guidance</b> Microsoft's multi-session tiers for " + std::to_string(c.vcpus) + " vCPUs: " + e(t) +
             " users; measured here: " + std::to_string(a.max_density) + " CAD sessions.</div>";
    }
    if (!c.sizing_note.empty()) h += "<div><b>Note</b> " + e(c.sizing_note) + ".</div>";
    h += "</div>\n";
    return h;
}

}  // namespace seatmark::report
