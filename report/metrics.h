#pragma once
// Named figures of a step (or of the run) that check and compare talk about, each with its
// unit and definition, optionally restricted to the sessions of one profile.
#include <optional>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "report/analysis.h"

namespace seatmark::report {

struct MetricInfo {
    std::string_view name;  // as written in a references file: "p95_ms"
    std::string_view unit;  // "ms", "FPS", "sessions", "%", "index"
    std::string_view text;  // what it is
    bool per_run = false;   // max_density: a property of the run, not of a step
    bool higher_is_better = true;
    bool pool_only = false; // scaling_efficiency, host_fairness: a property of the pool (references: host = "pool")
};

const std::vector<MetricInfo>& metric_catalog();
const MetricInfo* find_metric(std::string_view name);

// The figures of step `s`, from the sessions of `profile` ("*": all of them), as core::judge_window
// defines them for the whole step: medians over sessions, worst session for the SLA bounds.
struct StepFigures {
    size_t sessions = 0;  // judged sessions of that profile
    double fps_median = NAN, p95_ms = NAN, p95_worst_ms = NAN, low1_fps = NAN, latency_p95_ms = NAN,
           stutter_pct = NAN, failures = 0, fairness = NAN, host_cpu_pct = NAN, dropped = 0, model_open_ms = NAN;
};
StepFigures step_figures(const StepAnalysis& s, const std::string& profile = "*");
// The same from a verdict's session figures, with the host CPU beside them (-1: not sampled).
StepFigures verdict_figures(const core::StepVerdict& v, double host_cpu_mean_pct, const std::string& profile = "*");

// A metric from a step's figures; NaN when it has none (or names no step figure).
double figure_value(const StepFigures& f, std::string_view metric);
// A metric in each of a step's measurement windows (StepAnalysis::windows' or HostStep::windows'
// verdicts), NaN where a window has none: host_cpu_pct is sampled per step, not per window.
std::vector<double> window_values(const std::vector<core::StepVerdict>& windows, std::string_view metric,
                                  const std::string& profile = "*");

// A metric's value for a step (nullptr: the run, for per-run metrics). NaN when it has none.
double metric_value(const RunAnalysis& a, const StepAnalysis* s, const std::string& profile, std::string_view metric);
// One host's of a pool run (a.pool.hosts[host]); `step` indexes its steps (nullopt: per-run metrics).
double host_metric_value(const RunAnalysis& a, size_t host, std::optional<size_t> step, const std::string& profile,
                         std::string_view metric);
// The pool's own figures: scaling_efficiency for a pool of `hosts` hosts (E(1) = 1 for a single
// host), host_fairness. NaN when the run has none.
double pool_metric_value(const RunAnalysis& a, std::string_view metric, uint32_t hosts);

}  // namespace seatmark::report
