#include "core/density_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "core/confidence.h"

namespace seatmark::core {

namespace {

std::string fmt(const char* f, double a, double b = 0, double c = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, f, a, b, c);
    return buf;
}

// The latest decision per count: a re-measure replaces what it re-measured. True: the count
// passes, or is undecided with its estimate at or under the bound (passes_by_estimate).
std::map<uint32_t, bool> standing(const std::vector<Probe>& probes) {
    std::map<uint32_t, bool> m;
    for (const auto& p : probes) m[p.sessions] = passes_by_estimate(p.decision);
    return m;
}

struct Bracket {
    uint32_t lo = 0;               // highest pass with nothing but passes at or below it
    std::optional<uint32_t> hi;    // lowest count that did not pass
};

Bracket bracket(const std::map<uint32_t, bool>& m) {
    Bracket b;
    for (const auto& [n, pass] : m) {
        if (pass && !b.hi) b.lo = n;
        if (!pass && !b.hi) b.hi = n;
    }
    return b;
}

}  // namespace

bool passes_by_estimate(const ProbeDecision& d) {
    return d.state == ProbeState::pass || (d.state == ProbeState::undecided && d.windows > 0 && d.mean <= 1);
}

const char* to_string(ProbeState s) {
    switch (s) {
        case ProbeState::pass: return "pass";
        case ProbeState::fail: return "fail";
        case ProbeState::undecided: return "undecided";
        case ProbeState::more: break;
    }
    return "measuring";
}

WindowLoad window_load(const StepVerdict& v, const std::function<const Sla&(const std::string&)>& sla_for) {
    WindowLoad w;
    auto consider = [&](double load, const std::string& what) {
        if (load > w.load || w.figure.empty()) {
            w.load = load;
            w.figure = what;
        }
    };
    for (const auto& s : v.sessions) {
        if (!s.failure.empty()) continue;  // counted as a failure, not a figure
        const SlaLoad l = sla_load(s.summary, sla_for(s.profile));
        if (std::isinf(l.load)) w.hard_fail = true;  // no frames
        consider(l.load, session_reason(s.id, {l.figure}));
    }
    if (!v.pass) {
        w.why = v.reasons.empty() ? "failed" : v.reasons.front();
        // Failed although no figure broke its bound: failures, GPU memory, missing sessions, model open.
        if (w.load <= 1) w.hard_fail = true;
    }
    if (v.sessions.empty()) w.hard_fail = !v.pass;
    return w;
}

ProbeDecision decide_probe(std::span<const StepVerdict> windows,
                           const std::function<const Sla&(const std::string&)>& sla_for, uint32_t min_repeats,
                           uint32_t max_repeats) {
    ProbeDecision d;
    d.windows = int(windows.size());
    std::vector<double> loads;
    for (const auto& v : windows) {
        WindowLoad w = window_load(v, sla_for);
        if (w.hard_fail) {
            d.state = ProbeState::fail;
            d.mean = d.lo = d.hi = w.load;
            d.detail = "window " + std::to_string(loads.size() + 1) + " failed outright: " + w.why;
            return d;
        }
        loads.push_back(w.load);
    }
    if (loads.empty()) return d;
    MeanInterval ci = t_interval_95(loads);
    // Windows' figures are quantised (past the knee, frame intervals come in scheduler ticks), so
    // two windows can read the very same p95 and give an interval of no width, deciding on two
    // windows what a third would have left open (seen once: 62.0 and 62.0 ms, a fail where the
    // ramp passed that count). The spread of a window's load is taken to be at least a floor
    // (load_sd_floor, the one place), well under the 5-8 % the windows of bench_adaptive spread by.
    if (loads.size() >= 2) {
        const double n = double(loads.size());
        const double half = t_quantile_975(int(loads.size()) - 1) * load_sd_floor * std::fabs(ci.mean) / std::sqrt(n);
        ci.lo = std::min(ci.lo, ci.mean - half);
        ci.hi = std::max(ci.hi, ci.mean + half);
    }
    d.mean = ci.mean, d.lo = ci.lo, d.hi = ci.hi;
    const std::string figures = fmt("SLA load %.3f (95 %% CI %.3f-%.3f", ci.mean, ci.lo, ci.hi) + ") over " +
                                std::to_string(loads.size()) + (loads.size() == 1 ? " window" : " windows");
    const bool enough = loads.size() >= std::max<size_t>(2, min_repeats);
    if (enough && ci.hi <= 1) {
        d.state = ProbeState::pass;
        d.detail = figures + ": within the SLA";
    } else if (enough && ci.lo > 1) {
        d.state = ProbeState::fail;
        d.detail = figures + ": above the SLA";
    } else if (loads.size() >= std::max<uint32_t>(1, max_repeats)) {
        d.state = ProbeState::undecided;
        d.detail = figures + ": the interval still spans the bound after the plan's most windows (max_repeats " +
                   std::to_string(max_repeats) + ")";
    } else {
        d.detail = figures + ": not settled yet";
    }
    return d;
}

DensitySearch::DensitySearch(SearchConfig c) : c_(c) {
    c_.min = std::max(1u, c_.min);
    c_.max = std::max(c_.min, c_.max);
    c_.resolution = std::max(1u, c_.resolution);
    next_ = c_.min;
}

void DensitySearch::record(Probe p) {
    if (p.why.empty()) p.why = next_why_;
    probes_.push_back(std::move(p));
    plan_next();
}

void DensitySearch::plan_next() {
    const Probe& last = probes_.back();
    const auto m = standing(probes_);
    // A pass at or above a fail contradicts it: re-measure it once, and then the fail once.
    auto measured = [&](uint32_t n) {
        int k = 0;
        for (const auto& p : probes_) k += p.sessions == n;
        return k;
    };
    if (passes_by_estimate(last.decision)) {
        for (const auto& [n, pass] : m) {
            if (n > last.sessions) break;
            if (pass) continue;
            if (measured(last.sessions) < 2) {
                next_ = last.sessions;
                next_why_ = "re-measure: pass at " + std::to_string(last.sessions) + " above the fail at " + std::to_string(n);
                return;
            }
            if (measured(n) < 2) {
                next_ = n;
                next_why_ = "re-measure: fail at " + std::to_string(n) + " below the confirmed pass at " +
                            std::to_string(last.sessions);
                return;
            }
            break;  // both re-measured: the fail stands, and the answer stays below it
        }
    }
    const Bracket b = bracket(m);
    if (!b.hi) {
        if (b.lo >= c_.max) {
            next_.reset();
            return;
        }
        next_ = std::min<uint64_t>(c_.max, std::max<uint64_t>(uint64_t(b.lo) * 2, b.lo + c_.resolution));
        next_why_ = "growth";
        return;
    }
    bisecting_ = true;
    const uint32_t lower = std::max(b.lo, c_.min - 1);  // min - 1: below the range, taken as known
    if (*b.hi <= c_.min || *b.hi - lower <= c_.resolution) {
        next_.reset();
        return;
    }
    next_ = lower + (*b.hi - lower) / 2;
    next_why_ = "bisection between " + std::to_string(lower) + " and " + std::to_string(*b.hi);
}

SearchAnswer DensitySearch::answer() const {
    SearchAnswer a;
    const Bracket b = bracket(standing(probes_));
    a.max_density = b.lo;
    a.lowest_fail = b.hi;
    for (const auto& p : probes_)
        if (p.sessions == b.lo && b.lo > 0) a.step = p.step;
    a.reached_max = !b.hi && b.lo >= c_.max;
    a.within_resolution = a.reached_max || (b.hi && *b.hi - std::max(b.lo, c_.min - 1) <= c_.resolution);
    // The undecided counts that still stand (the latest probe of each), with their estimates.
    std::map<uint32_t, const Probe*> latest;
    for (const auto& p : probes_) latest[p.sessions] = &p;
    std::string undecided;
    for (const auto& [n, p] : latest) {
        if (p->decision.state != ProbeState::undecided) continue;
        a.undecided.push_back(n);
        undecided += (undecided.empty() ? "" : ", ") + std::to_string(n) +
                     fmt(" (SLA load %.3f, 95 %% CI %.3f-%.3f: ", p->decision.mean, p->decision.lo, p->decision.hi) +
                     (passes_by_estimate(p->decision) ? "a pass" : "a fail") + ")";
    }
    const std::string probes = std::to_string(probes_.size()) + (probes_.size() == 1 ? " probe" : " probes");
    if (a.reached_max)
        a.text = "at least " + std::to_string(b.lo) + " sessions: the search's max passed (" + probes + ")";
    else if (b.lo == 0)
        a.text = b.hi ? "none: " + std::to_string(*b.hi) + " sessions, the search's min, did not pass (" + probes + ")"
                      : "none measured yet";
    else
        a.text = std::to_string(b.lo) + " sessions" +
                 (b.hi ? "; " + std::to_string(*b.hi) + " did not pass" : std::string()) +
                 (a.within_resolution ? "; found to within " + std::to_string(c_.resolution) +
                                            (c_.resolution == 1 ? " session" : " sessions")
                                      : "; not narrowed to the resolution (the run ended first)") +
                 " in " + probes;
    if (!undecided.empty())
        a.text += "; undecided after the plan's most windows, each taken by its estimate (the bound lies within the "
                  "measurement's noise there): " + undecided;
    return a;
}

size_t DensitySearch::planned_steps() const {
    size_t n = 1;
    for (uint64_t k = c_.min; k < c_.max; k *= 2) ++n;
    for (uint32_t gap = std::max(1u, c_.max / 2); gap > c_.resolution; gap /= 2) ++n;
    return n + 2;  // room for the re-measures
}

MachineTime machine_time(const SearchConfig& c, const SearchAnswer& a, std::span<const ProbeTimes> probes, uint32_t repeats) {
    MachineTime m;
    double setup = 0, window = 0;
    int n = 0;
    for (const auto& p : probes) {
        m.spent_s += double(p.ended_ns - p.started_ns) * 1e-9;
        if (p.windows > 0 && p.first_window_ns >= p.started_ns) {
            setup += double(p.first_window_ns - p.started_ns) * 1e-9;
            window += p.window_s;
            ++n;
        }
    }
    if (n == 0) return m;
    const uint32_t res = std::max(1u, c.resolution), lo = std::max(1u, c.min);
    const uint32_t end = std::min(c.max, a.lowest_fail.value_or(c.max));
    m.linear_steps = end >= lo ? (end - lo) / res + 1 : 1;
    // The ramp also has to reach the failing count itself to see it fail.
    if (a.lowest_fail && lo + (m.linear_steps - 1) * res < *a.lowest_fail && *a.lowest_fail <= c.max) ++m.linear_steps;
    m.linear_s = m.linear_steps * (setup / n + std::max(1u, repeats) * (window / n));
    return m;
}

}  // namespace seatmark::core
