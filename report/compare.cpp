#include "report/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "report/confidence.h"
#include "report/format.h"
#include "report/metrics.h"

namespace seatmark::report {

namespace {

using nlohmann::json;

constexpr const char* compared[] = {"fps_median", "p95_ms", "p95_worst_ms", "low1_fps", "latency_p95_ms",
                                    "stutter_pct", "failures", "fairness", "host_cpu_pct"};

const StepAnalysis* step_with(const RunAnalysis& a, uint32_t target) {
    for (const auto& s : a.steps)
        if (s.target == target) return &s;
    return nullptr;
}

std::string verdict_word(const StepAnalysis* s) {
    if (!s) return "-";
    if (s->windows.empty()) return "not measured";
    return s->verdict.pass ? "pass" : "fail";
}

std::string signed_num(double v, int digits) {
    if (!std::isfinite(v)) return "n/a";
    char b[48];
    std::snprintf(b, sizeof b, "%+.*f", digits, v);
    return b;
}

std::string diff_pct(double a, double b) {
    if (!std::isfinite(a) || !std::isfinite(b) || a == 0) return a == b && std::isfinite(a) ? "+0.0 %" : "n/a";
    return signed_num((b - a) / std::abs(a) * 100, 1) + " %";
}

// How B's figure reads against A's: its direction (as the metric counts better) and whether the
// difference lies within the runs' own window-to-window spread (report/confidence.h: spread_of).
// Two runs of one plan on an idle host differ by 15 % in latency and 60 % in 1 % low: without
// this, noise read as findings.
struct Reading {
    std::string direction;  // "better", "worse", "same"; "" when either figure is missing
    Spread spread = Spread::unknown;
    Interval a, b;          // over each run's windows
};

Interval finite_interval(const std::vector<double>& values) {
    std::vector<double> v;
    for (double x : values)
        if (std::isfinite(x)) v.push_back(x);
    Interval i = t_interval_95(v);
    if (v.size() != values.size()) i.n = std::min<int>(i.n, 1);  // a window without the figure: no spread
    return i;
}

Reading read_difference(std::string_view metric, double va, double vb, const std::vector<double>& wa, const std::vector<double>& wb) {
    Reading r;
    if (!std::isfinite(va) || !std::isfinite(vb)) return r;
    const MetricInfo* info = find_metric(metric);
    r.direction = va == vb ? "same" : ((vb > va) == (info && info->higher_is_better) ? "better" : "worse");
    r.a = finite_interval(wa);
    r.b = finite_interval(wb);
    r.spread = spread_of(r.a, r.b);
    return r;
}

// "worse", "worse (within spread)", "better (spread unknown)", "same"
std::string reading_text(const Reading& r) {
    if (r.direction.empty() || r.direction == "same") return r.direction;
    if (r.spread == Spread::within) return r.direction + " (within spread)";
    if (r.spread == Spread::unknown) return r.direction + " (spread unknown)";
    return r.direction;
}

nlohmann::json reading_json(const Reading& r) {
    auto ci = [](const Interval& i) { return i.available() ? nlohmann::json::array({i.lo, i.hi}) : nlohmann::json(nullptr); };
    return {{"direction", r.direction.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.direction)},
            {"spread", std::string(to_string(r.spread))},
            {"a_ci95", ci(r.a)},
            {"b_ci95", ci(r.b)}};
}

std::vector<double> step_window_values(const StepAnalysis* s, std::string_view metric) {
    if (!s || s->windows.empty()) return {};
    std::vector<core::StepVerdict> v;
    for (const auto& w : s->windows) v.push_back(w.verdict);
    return window_values(v, metric);
}

int digits_for(std::string_view metric) { return metric == "fairness" ? 3 : (metric == "failures" ? 0 : 1); }

std::string pad(const std::string& s, size_t w, bool right = false) {
    if (s.size() >= w) return s;
    return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::set<uint32_t> targets(const RunAnalysis& a, const RunAnalysis& b) {
    std::set<uint32_t> t;
    for (const auto& s : a.steps) t.insert(s.target);
    for (const auto& s : b.steps) t.insert(s.target);
    return t;
}

std::string run_line(const char* tag, const RunAnalysis& r) {
    std::string dev = r.devices.empty() ? "no device" : r.devices.front().device_name;
    if (r.any_software) dev += " (software renderer)";
    const std::string where = r.pool.is_pool() ? "pool of " + std::to_string(r.pool.hosts.size()) + " hosts (rank 0 " + r.run.host + ")"
                                               : "host " + r.run.host;
    return std::string(tag) + ": " + r.db_path + "  " + where + ", " + dev + ", " + r.status_text + ", max density " +
           std::to_string(r.max_density) + "\n";
}

// One host's steps, as compare pairs them: a pool run's hosts each on their own steps (by their own
// session count); a single-host run is one such host.
struct HostView {
    std::string name;
    uint32_t max_density = 0;
    struct Step {
        uint32_t sessions = 0;
        bool measured = false, pass = false;
        StepFigures figures;
        std::vector<core::StepVerdict> windows;  // each measurement window's verdict
    };
    std::vector<Step> steps;
    const Step* at(uint32_t sessions) const {
        const Step* found = nullptr;
        for (const auto& s : steps)
            if (s.sessions == sessions && (!found || s.measured)) found = &s;
        return found;
    }
};

std::vector<HostView> host_views(const RunAnalysis& r) {
    std::vector<HostView> out;
    if (!r.pool.is_pool()) {
        HostView v{r.run.host, r.max_density, {}};
        for (const auto& s : r.steps) {
            v.steps.push_back({s.target, !s.windows.empty(), s.verdict.pass, step_figures(s), {}});
            for (const auto& w : s.windows) v.steps.back().windows.push_back(w.verdict);
        }
        out.push_back(std::move(v));
        return out;
    }
    for (const auto& h : r.pool.hosts) {
        HostView v{h.host.hostname, h.max_density, {}};
        for (const auto& s : h.steps)
            v.steps.push_back({s.target, s.judged, s.verdict.pass, verdict_figures(s.verdict, s.host_cpu_mean_pct), s.windows});
        out.push_back(std::move(v));
    }
    return out;
}

double figure_of(const HostView::Step* s, std::string_view m) {
    if (!s || !s->measured) return NAN;
    return figure_value(s->figures, m);
}

std::vector<double> host_window_values(const HostView::Step* s, std::string_view m) {
    return s && s->measured ? window_values(s->windows, m) : std::vector<double>{};
}

std::string verdict_word(const HostView::Step* s) {
    if (!s) return "-";
    if (!s->measured) return "not measured";
    return s->pass ? "pass" : "fail";
}

constexpr const char* per_host_compared[] = {"fps_median", "p95_ms", "p95_worst_ms", "failures"};

// Host pairs: by position in rank order (the same pool re-run keeps its names; a different pool
// or a single host against a pool pairs host for host).
std::vector<std::pair<const HostView*, const HostView*>> pairs(const std::vector<HostView>& a, const std::vector<HostView>& b) {
    std::vector<std::pair<const HostView*, const HostView*>> out;
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i)
        out.push_back({i < a.size() ? &a[i] : nullptr, i < b.size() ? &b[i] : nullptr});
    return out;
}

std::set<uint32_t> host_targets(const HostView* a, const HostView* b) {
    std::set<uint32_t> t;
    for (const HostView* v : {a, b})
        if (v)
            for (const auto& s : v->steps) t.insert(s.sessions);
    return t;
}

std::string pair_name(const HostView* a, const HostView* b) {
    if (a && b) return a->name == b->name ? a->name : a->name + " / " + b->name;
    return a ? a->name + " (A only)" : b->name + " (B only)";
}

}  // namespace

std::string compare_text(const RunAnalysis& a, const RunAnalysis& b) {
    std::string out = "seatmark compare\n";
    out += run_line("  A", a);
    out += run_line("  B", b);
    double da = a.max_density, db = b.max_density;
    out += "\nmax density: A " + std::to_string(a.max_density) + ", B " + std::to_string(b.max_density) + " sessions (" +
           signed_num(db - da, 0) + ", " + diff_pct(da, db) + ")\n\n";
    out += "  " + pad("sessions", 9) + pad("metric", 16) + pad("A", 11, true) + pad("B", 11, true) +
           pad("B - A", 11, true) + pad("B - A %", 11, true) + "  B against A\n";
    for (uint32_t t : targets(a, b)) {
        const StepAnalysis* sa = step_with(a, t);
        const StepAnalysis* sb = step_with(b, t);
        bool first = true;
        for (const char* m : compared) {
            double va = metric_value(a, sa, "*", m), vb = metric_value(b, sb, "*", m);
            int d = digits_for(m);
            const Reading rd = read_difference(m, va, vb, step_window_values(sa, m), step_window_values(sb, m));
            out += "  " + pad(first ? std::to_string(t) : "", 9) + pad(m, 16) + pad(num(va, d), 11, true) +
                   pad(num(vb, d), 11, true) + pad(signed_num(vb - va, d), 11, true) + pad(diff_pct(va, vb), 11, true) +
                   (rd.direction.empty() ? "" : "  " + reading_text(rd)) + "\n";
            first = false;
        }
        out += "  " + pad("", 9) + pad("verdict", 16) + pad(verdict_word(sa), 11, true) + pad(verdict_word(sb), 11, true) +
               "\n\n";
    }
    if (a.pool.is_pool() || b.pool.is_pool()) {
        const auto va = host_views(a), vb = host_views(b);
        out += "Per host (each host's own steps, by its own session count):\n\n";
        for (const auto& [ha, hb] : pairs(va, vb)) {
            const double ma = ha ? double(ha->max_density) : NAN, mb = hb ? double(hb->max_density) : NAN;
            out += "  host " + pair_name(ha, hb) + ": max density A " + num(ma, 0) + ", B " + num(mb, 0) + " (" +
                   signed_num(mb - ma, 0) + ")\n";
            for (uint32_t t : host_targets(ha, hb)) {
                const HostView::Step* sa = ha ? ha->at(t) : nullptr;
                const HostView::Step* sb = hb ? hb->at(t) : nullptr;
                bool first = true;
                for (const char* m : per_host_compared) {
                    const double x = figure_of(sa, m), y = figure_of(sb, m);
                    const int d = digits_for(m);
                    const Reading rd = read_difference(m, x, y, host_window_values(sa, m), host_window_values(sb, m));
                    out += "  " + pad(first ? std::to_string(t) : "", 9) + pad(m, 16) + pad(num(x, d), 11, true) +
                           pad(num(y, d), 11, true) + pad(signed_num(y - x, d), 11, true) + pad(diff_pct(x, y), 11, true) +
                           (rd.direction.empty() ? "" : "  " + reading_text(rd)) + "\n";
                    first = false;
                }
                out += "  " + pad("", 9) + pad("verdict", 16) + pad(verdict_word(sa), 11, true) + pad(verdict_word(sb), 11, true) +
                       "\n";
            }
            out += "\n";
        }
    }
    out += "Metrics: ";
    bool first = true;
    for (const char* m : compared) {
        const MetricInfo* info = find_metric(m);
        out += std::string(first ? "" : "; ") + m + " [" + std::string(info->unit) + "] " + std::string(info->text);
        first = false;
    }
    out += ".\n";
    out += "B against A: better or worse as each metric counts (higher FPS, fairness and 1 % low are better; lower "
           "intervals, latency, stutter, failures and CPU are better). \"within spread\": the 95 % intervals over each "
           "run's measurement windows overlap, so the difference is no larger than the runs vary by themselves; a bare "
           "better or worse lies beyond that spread. \"spread unknown\": a step measured in one window has no spread of "
           "its own, so noise cannot be told from a finding; measure with [steps] repeats = 3 or more.\n";
    return out;
}

json compare_json(const RunAnalysis& a, const RunAnalysis& b) {
    auto jn = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
    json j;
    j["a"] = {{"db", a.db_path}, {"host", a.run.host}, {"status", std::string(store::to_string(a.status))},
              {"max_density", a.max_density}, {"hosts", std::max<size_t>(1, a.pool.hosts.size())}};
    j["b"] = {{"db", b.db_path}, {"host", b.run.host}, {"status", std::string(store::to_string(b.status))},
              {"max_density", b.max_density}, {"hosts", std::max<size_t>(1, b.pool.hosts.size())}};
    j["max_density_diff"] = int64_t(b.max_density) - int64_t(a.max_density);
    j["steps"] = json::array();
    for (uint32_t t : targets(a, b)) {
        const StepAnalysis* sa = step_with(a, t);
        const StepAnalysis* sb = step_with(b, t);
        json s = {{"sessions", t}, {"verdict_a", verdict_word(sa)}, {"verdict_b", verdict_word(sb)}};
        for (const char* m : compared) {
            double va = metric_value(a, sa, "*", m), vb = metric_value(b, sb, "*", m);
            json d = {{"a", jn(va)}, {"b", jn(vb)}, {"diff", jn(vb - va)}};
            d["diff_pct"] = (std::isfinite(va) && std::isfinite(vb) && va != 0) ? json((vb - va) / std::abs(va) * 100) : json(nullptr);
            d.update(reading_json(read_difference(m, va, vb, step_window_values(sa, m), step_window_values(sb, m))));
            s[m] = d;
        }
        j["steps"].push_back(s);
    }
    j["hosts"] = json::array();
    if (a.pool.is_pool() || b.pool.is_pool()) {
        const auto va = host_views(a), vb = host_views(b);
        for (const auto& [ha, hb] : pairs(va, vb)) {
            json h = {{"host_a", ha ? json(ha->name) : json(nullptr)}, {"host_b", hb ? json(hb->name) : json(nullptr)},
                      {"max_density_a", ha ? json(ha->max_density) : json(nullptr)},
                      {"max_density_b", hb ? json(hb->max_density) : json(nullptr)}, {"steps", json::array()}};
            for (uint32_t t : host_targets(ha, hb)) {
                const HostView::Step* sa = ha ? ha->at(t) : nullptr;
                const HostView::Step* sb = hb ? hb->at(t) : nullptr;
                json st = {{"sessions", t}, {"verdict_a", verdict_word(sa)}, {"verdict_b", verdict_word(sb)}};
                for (const char* m : per_host_compared) {
                    const double x = figure_of(sa, m), y = figure_of(sb, m);
                    st[m] = {{"a", jn(x)}, {"b", jn(y)}, {"diff", jn(y - x)}};
                    st[m].update(reading_json(read_difference(m, x, y, host_window_values(sa, m), host_window_values(sb, m))));
                }
                h["steps"].push_back(st);
            }
            j["hosts"].push_back(h);
        }
    }
    return j;
}

}  // namespace seatmark::report
