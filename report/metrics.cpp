#include "report/metrics.h"

#include <algorithm>
#include <cmath>

#include "core/stats.h"

namespace seatmark::report {

const std::vector<MetricInfo>& metric_catalog() {
    static const std::vector<MetricInfo> m = {
        {"max_density", "sessions", "the last step such that it and every step below it passed", true, true},
        {"fps_median", "FPS", "median over the step's sessions of per-session FPS (frames / active time)", false, true},
        {"p95_ms", "ms", "median over the step's sessions of per-session nearest-rank p95 frame interval", false, false},
        {"p95_worst_ms", "ms", "the worst session's p95 frame interval", false, false},
        {"low1_fps", "FPS", "the worst session's 1 % low FPS (1000 / p99 frame interval)", false, true},
        {"latency_p95_ms", "ms", "the worst session's interaction latency p95", false, false},
        {"stutter_pct", "%", "the worst session's share of frames slower than 2.5 x its median interval", false, false},
        {"failures", "sessions", "sessions that failed (crash, hang, device lost, ...) during the step", false, false},
        {"fairness", "index", "Jain's index over per-session FPS (1 = equal share)", false, true},
        {"host_cpu_pct", "%", "mean host-wide CPU use in the step's measurement windows", false, false},
        {"dropped", "frames", "gaps in the sessions' frame sequence numbers in the step", false, false},
        {"model_open_ms", "ms", "the slowest model open time (session start -> first frame showing its scene) of the step's sessions", false, false},
        {"scaling_efficiency", "ratio", "E(H) = passing sessions on H hosts / (H x passing sessions on one host) (pool; give hosts = H)", true, true, true},
        {"host_fairness", "index", "Jain's index over the hosts' median FPS (pool; 1 = every host delivers the same)", true, true, true},
    };
    return m;
}

const MetricInfo* find_metric(std::string_view name) {
    for (const auto& m : metric_catalog())
        if (m.name == name) return &m;
    return nullptr;
}

StepFigures step_figures(const StepAnalysis& s, const std::string& profile) {
    return verdict_figures(s.verdict, s.host_cpu_mean_pct, profile);
}

StepFigures verdict_figures(const core::StepVerdict& v, double host_cpu_mean_pct, const std::string& profile) {
    StepFigures f;
    std::vector<double> fps, p95;
    double low1 = NAN, lat = NAN, stutter = NAN;
    for (const auto& x : v.sessions) {
        if (profile != "*" && x.profile != profile) continue;
        ++f.sessions;
        if (!x.failure.empty()) f.failures += 1;
        f.dropped += double(x.summary.dropped);
        if (std::isfinite(x.model_open_ms)) f.model_open_ms = std::isnan(f.model_open_ms) ? x.model_open_ms : std::max(f.model_open_ms, x.model_open_ms);
        if (x.summary.frames == 0) continue;
        fps.push_back(x.summary.fps);
        if (std::isfinite(x.summary.p95_ms)) p95.push_back(x.summary.p95_ms);
        if (std::isfinite(x.summary.low1_fps)) low1 = std::isnan(low1) ? x.summary.low1_fps : std::min(low1, x.summary.low1_fps);
        if (std::isfinite(x.summary.latency_p95_ms)) lat = std::isnan(lat) ? x.summary.latency_p95_ms : std::max(lat, x.summary.latency_p95_ms);
        if (std::isfinite(x.summary.stutter)) stutter = std::isnan(stutter) ? x.summary.stutter * 100 : std::max(stutter, x.summary.stutter * 100);
    }
    if (!fps.empty()) {
        f.fps_median = stats::median(fps);
        f.fairness = stats::jain_fairness(fps);
    }
    if (!p95.empty()) {
        f.p95_ms = stats::median(p95);
        f.p95_worst_ms = *std::max_element(p95.begin(), p95.end());
    }
    f.low1_fps = low1;
    f.latency_p95_ms = lat;
    f.stutter_pct = stutter;
    f.host_cpu_pct = host_cpu_mean_pct >= 0 ? host_cpu_mean_pct : NAN;
    return f;
}

double figure_value(const StepFigures& f, std::string_view metric) {
    if (f.sessions == 0) return NAN;
    if (metric == "fps_median") return f.fps_median;
    if (metric == "p95_ms") return f.p95_ms;
    if (metric == "p95_worst_ms") return f.p95_worst_ms;
    if (metric == "low1_fps") return f.low1_fps;
    if (metric == "latency_p95_ms") return f.latency_p95_ms;
    if (metric == "stutter_pct") return f.stutter_pct;
    if (metric == "failures") return f.failures;
    if (metric == "fairness") return f.fairness;
    if (metric == "host_cpu_pct") return f.host_cpu_pct;
    if (metric == "dropped") return f.dropped;
    if (metric == "model_open_ms") return f.model_open_ms;
    return NAN;
}

std::vector<double> window_values(const std::vector<core::StepVerdict>& windows, std::string_view metric, const std::string& profile) {
    std::vector<double> out;
    for (const auto& w : windows) out.push_back(figure_value(verdict_figures(w, -1, profile), metric));
    return out;
}

double metric_value(const RunAnalysis& a, const StepAnalysis* s, const std::string& profile, std::string_view metric) {
    if (metric == "max_density") return double(a.max_density);
    if (!s || s->windows.empty()) return NAN;
    return figure_value(step_figures(*s, profile), metric);
}

double host_metric_value(const RunAnalysis& a, size_t host, std::optional<size_t> step, const std::string& profile,
                         std::string_view metric) {
    const HostAnalysis& h = a.pool.hosts.at(host);
    if (metric == "max_density") return double(h.max_density);
    if (!step || *step >= h.steps.size() || !h.steps[*step].judged) return NAN;
    const HostStep& s = h.steps[*step];
    return figure_value(verdict_figures(s.verdict, s.host_cpu_mean_pct, profile), metric);
}

double pool_metric_value(const RunAnalysis& a, std::string_view metric, uint32_t hosts) {
    if (metric == "host_fairness") return a.pool.is_pool() ? a.pool.fairness : 1.0;
    if (metric == "scaling_efficiency") {
        if (!a.pool.is_pool()) return hosts == 1 ? 1.0 : NAN;
        for (const auto& p : a.pool.scaling)
            if (p.hosts == hosts) return p.efficiency;
    }
    return NAN;
}

}  // namespace seatmark::report
