#pragma once
// Adaptive density search (plan `[steps] search = "adaptive"`, docs/design.md "Adaptive density
// search"): find the max density in [min, max] to within `resolution` sessions with few probes.
//
// The path: probe `min`; while probes pass, grow geometrically (x2, clipped to max); after the
// first probe that does not pass, bisect between the highest pass below it and it until the gap
// is at most the resolution. Moving down, the newest sessions are stopped (the controller's job).
//
// A probe's verdict (decide_probe): each window gives the deciding figure, the SLA load: over the
// window's sessions and SLA clauses, the largest figure / bound (p95 interval, 1 % low (inverted),
// latency p95, stutter), so 1.0 is "at the bound" and above it breaks the SLA. After at least
// `min_repeats` windows the 95 % Student-t interval of the windows' mean load decides: entirely at
// or below 1: pass; entirely above: fail; else another window, up to `max_repeats`, then
// "undecided", said so in the probe and in the answer. The search then takes an undecided probe by
// its estimate (the mean load at or under 1: the pass side; passes_by_estimate), as a linear ramp
// takes every step: its interval says the bound lies within the measurement's noise of that
// count, and calling it a fail would put the answer below a count whose figure met the SLA (in
// bench_adaptive the answer fell 3 below the ramp's that way). A window that failed for a reason the figures
// do not carry (failed sessions beyond the allowance, the GPU memory bound, fewer sessions than the
// target, a session without frames) decides a fail at once.
//
// A pass at a count at or above an observed fail contradicts it: that count is re-measured once
// before it is believed; the answer never rises above the lowest fail that stands.
//
// The same class replays a finished run's probes in the report, so the run and the report give the
// same answer by the same rule.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/sla.h"
#include "core/verdict.h"

namespace seatmark::core {

enum class ProbeState { more, pass, fail, undecided };
const char* to_string(ProbeState s);

struct WindowLoad {
    double load = 0;          // worst figure / bound over sessions and clauses (> 1 breaks the SLA)
    std::string figure;       // which: "p95 of session 3: 41.2 ms vs 33.3 ms"
    bool hard_fail = false;   // failed for a reason outside the figures: decides at once
    std::string why;          // the window's first reason, when it failed
};

WindowLoad window_load(const StepVerdict& v, const std::function<const Sla&(const std::string&)>& sla_for);

// The least spread (standard deviation, as a share of the mean load) a probe's windows are taken
// to have: a floor under the confidence interval, since equal figures from two windows say the
// figure is quantised, not that it is exact.
inline constexpr double load_sd_floor = 0.01;

struct ProbeDecision {
    ProbeState state = ProbeState::more;
    int windows = 0;
    double mean = 0, lo = 0, hi = 0;  // 95 % t interval of the mean load (lo == hi == mean with one window)
    std::string detail;               // "SLA load 0.82 (95 % CI 0.78-0.86) <= 1 over 2 windows: pass"
};

// Which side of the bound the search takes a probe on: a pass, or undecided with its mean load
// at or under 1.
bool passes_by_estimate(const ProbeDecision& d);

ProbeDecision decide_probe(std::span<const StepVerdict> windows,
                           const std::function<const Sla&(const std::string&)>& sla_for, uint32_t min_repeats,
                           uint32_t max_repeats);

struct SearchConfig {
    uint32_t min = 1, max = 1, resolution = 1;
};

struct Probe {
    size_t step = 0;            // index of the step it ran as
    uint32_t sessions = 0;
    std::string why;            // "first", "growth", "bisection", "re-measure ..."
    ProbeDecision decision;
    int64_t started_ns = 0, ended_ns = 0;
};

struct SearchAnswer {
    uint32_t max_density = 0;          // highest passing count with no standing fail at or below it; 0: none
    std::optional<size_t> step;        // the step it was measured in
    std::optional<uint32_t> lowest_fail;  // lowest count that did not pass (fail, or undecided above the bound)
    std::vector<uint32_t> undecided;   // counts whose standing probe is undecided (taken by their estimate)
    bool within_resolution = false;    // the gap to it is at most the resolution, or max passed
    bool reached_max = false;          // max itself passed: the answer is "at least max"
    std::string text;                  // the answer in words
};

class DensitySearch {
public:
    explicit DensitySearch(SearchConfig c);
    // The count to probe next; nullopt when the search is done.
    std::optional<uint32_t> next() const { return next_; }
    // Records the probe of next()'s count and moves on.
    void record(Probe p);
    const std::vector<Probe>& probes() const { return probes_; }
    SearchAnswer answer() const;
    bool done() const { return !next_; }
    // Steps the search takes at most (growth plus bisection, one re-measure), for "step k of n".
    size_t planned_steps() const;

private:
    void plan_next();
    SearchConfig c_;
    std::vector<Probe> probes_;
    std::optional<uint32_t> next_;
    std::string next_why_ = "first";
    bool bisecting_ = false;
};

// Machine time of the search beside a linear ramp at the same resolution (min, min + resolution,
// ... up to the search's lowest failing count, or max), both from the probes' own durations: a
// linear step costs the probes' mean set-up (step start to first window: sessions, settle) plus
// `repeats` windows of their mean window length.
struct MachineTime {
    double spent_s = 0;           // the probes, start to end
    double linear_s = 0;          // the linear ramp's estimate
    uint32_t linear_steps = 0;
    double saved_share() const { return linear_s > 0 ? 1 - spent_s / linear_s : 0; }
};
struct ProbeTimes {
    int64_t started_ns = 0, first_window_ns = 0, ended_ns = 0;
    int windows = 0;
    double window_s = 0;  // mean window length
};
MachineTime machine_time(const SearchConfig& c, const SearchAnswer& a, std::span<const ProbeTimes> probes, uint32_t repeats);

}  // namespace seatmark::core
