#include "report/capacity_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "report/format.h"
#include "report/host_roster.h"

namespace seatmark::report {

namespace {

// Microsoft's multi-session sizing guidance (Azure Virtual Desktop, "Session host virtual machine
// sizing guidelines"): users per vCPU by workload tier, for hosts of 4 to 24 vCPUs.
constexpr struct {
    const char* name;
    int per_vcpu;
} ms_tiers[] = {{"light", 6}, {"medium", 4}, {"heavy", 2}, {"power", 1}};

void points(const RunAnalysis& a, CapacityAnalysis& c) {
    std::set<double> bounds;
    for (const auto& s : a.sessions) bounds.insert(a.sla_for(s.profile).p95_interval_ms);
    c.p95_relative = bounds.size() > 1;
    c.p95_label = c.p95_relative ? "worst session's p95 frame interval, % of its own SLA bound"
                                 : "worst session's p95 frame interval, ms";
    for (const auto& s : a.steps) {
        if (!s.measured) continue;
        for (const auto& w : s.windows) {
            double fps = 0, worst = NAN;
            std::vector<double> per;
            for (const auto& f : w.verdict.sessions) {
                if (f.summary.frames == 0 || !std::isfinite(f.summary.p95_ms)) continue;
                fps += f.summary.fps;
                per.push_back(f.summary.fps);
                double v = f.summary.p95_ms;
                if (c.p95_relative) v = 100 * v / a.sla_for(f.profile).p95_interval_ms;
                worst = std::isnan(worst) ? v : std::max(worst, v);
            }
            if (fps > 0) {
                std::nth_element(per.begin(), per.begin() + long(per.size() / 2), per.end());
                c.fps_points.push_back({double(s.target), fps, per[per.size() / 2]});
            }
            if (std::isfinite(worst)) c.p95_points.push_back({double(s.target), worst});
        }
    }
}

}  // namespace

CapacityAnalysis model_capacity(const RunAnalysis& a) {
    const std::optional<double>& host_per_hour = a.host_per_hour;
    const std::string& currency = a.currency;
    CapacityAnalysis c;
    points(a, c);
    c.usl = core::fit_usl(c.fps_points);
    const double bound = c.p95_relative ? 100 : (a.sessions.empty() ? a.default_sla.p95_interval_ms
                                                                    : a.sla_for(a.sessions.front().profile).p95_interval_ms);
    c.crossing = core::predict_crossing(c.p95_points, bound);

    // Cost per user-hour at max density: per host, and for the pool when several hosts took part.
    c.currency = currency;
    if (host_per_hour) {
        auto line = [&](std::string scope, uint32_t users, double per_hour) {
            CostLine l{std::move(scope), users, per_hour, std::nullopt};
            if (users > 0) l.per_user_hour = per_hour / users;
            c.cost.push_back(l);
        };
        if (!a.pool.is_pool()) {
            line("per host", a.max_density, *host_per_hour);
        } else {
            // The pool's max density shares every host's cost; each host's own (its per-host
            // verdicts, report/pool_judge.h) shares its own.
            const size_t hosts = a.pool.hosts.size();
            line("pool of " + std::to_string(hosts) + " hosts", a.max_density, *host_per_hour * double(hosts));
            for (const auto& h : a.pool.hosts) line("host " + h.host.hostname, h.max_density, *host_per_hour);
        }
        if (a.max_density == 0) c.cost_note = "no step passed: there is no density to share the host's cost";
    }

    // Sizing guidance for the host's vCPUs.
    // The sessions' host (a joined run's, never the controller's), when there is one.
    if (const store::HostRow* h = measured_host(a); h && h->cpu_count > 0) {
        c.vcpus = int(h->cpu_count);
        // A cpuset or quota smaller than the machine is the host the sessions really had.
        if (const auto cap = h->cpu_capacity; cap && *cap < c.vcpus) c.vcpus = std::max(1, int(*cap));
        for (const auto& t : ms_tiers) c.tiers.push_back({t.name, t.per_vcpu, t.per_vcpu * c.vcpus});
        if (c.vcpus < 4 || c.vcpus > 24)
            c.sizing_note = "this host has " + std::to_string(c.vcpus) +
                            " vCPUs, outside the 4-24 vCPUs the guidance recommends for a session host: its tiers are "
                            "extrapolated here";
    } else {
        c.sizing_note = "the host's vCPU count was not recorded";
    }
    return c;
}

std::string usl_text(const CapacityAnalysis& c) {
    if (!c.usl.ok) return "throughput model not fitted: " + c.usl.why;
    char b[320];
    std::snprintf(b, sizeof b,
                  "USL on delivered FPS: lambda %.1f FPS (one session alone), contention sigma %.4f, coherency kappa %.5f, "
                  "R\u00b2 %.3f over %d windows",
                  c.usl.lambda, c.usl.sigma, c.usl.kappa, c.usl.r2, c.usl.points);
    std::string t = b;
    if (auto peak = c.usl.peak_sessions()) t += "; throughput peaks near " + num(*peak, 1) + " sessions";
    else t += "; no retrograde region (kappa 0)";
    return t;
}

std::string crossing_text(const CapacityAnalysis& c) {
    const auto& p = c.crossing;
    if (!p.ok) return "SLA crossing not predicted: " + p.why;
    const std::string unit = c.p95_relative ? " %" : " ms";
    std::string t = "p95 fit a + b(N-1) + cN(N-1): a " + num(p.fit.a, 2) + ", b " + num(p.fit.b, 3) + ", c " +
                    num(p.fit.c, 4) + " (R\u00b2 " + num(p.fit.r2, 3) + "); ";
    if (p.above_at_one)
        return t + "it is at or above the bound of " + num(p.bound_ms, 1) + unit +
               " already at 1 session: nothing to cross, predicted max density 0";
    if (!p.crossing) return t + "it never reaches the bound of " + num(p.bound_ms, 1) + unit + " (flat): no crossing predicted";
    t += "the bound of " + num(p.bound_ms, 1) + unit + " is crossed at " + num(*p.crossing, 1) + " sessions";
    if (p.ci_available)
        t += " (95 % bootstrap interval over windows " + num(p.ci_lo, 1) + "\u2013" +
             (p.ci_hi ? num(*p.ci_hi, 1) : std::string("unbounded")) + ", " + std::to_string(p.resamples_used) + " resamples)";
    else
        t += " (no bootstrap interval: too few resamples could be fitted)";
    if (p.predicted_max) t += "; predicted max density " + std::to_string(*p.predicted_max);
    if (p.extrapolated)
        t += "; EXTRAPOLATION: outside the measured " + num(p.measured_min, 0) + "\u2013" + num(p.measured_max, 0) + " sessions";
    return t;
}

std::string density_agreement(const RunAnalysis& a, const CapacityAnalysis& c) {
    const auto& p = c.crossing;
    if (!p.ok || !p.predicted_max) return "";
    const uint32_t predicted = *p.predicted_max, measured = a.max_density;
    if (predicted + 1 >= measured && predicted <= measured + 1) return "";
    const std::string t =
        "the fit predicts " + std::to_string(predicted) + " but the run measured " + std::to_string(measured) + ": ";
    // The first step that failed, when its failure is not the p95 the fit follows.
    for (const auto& s : a.steps) {
        if (!s.measured || s.verdict.pass) continue;
        const std::string why = s.verdict.reasons.empty() ? std::string("?") : s.verdict.reasons.front();
        const bool p95_held = !c.p95_relative && std::isfinite(s.verdict.p95_worst_ms) && s.verdict.p95_worst_ms <= p.bound_ms;
        if (predicted > measured && p95_held)
            return t + "the fit follows the worst p95 only, and step " + std::to_string(s.idx + 1) + " (" +
                   std::to_string(s.target) + " sessions) failed on something else (" + why + ")";
        break;
    }
    if (p.extrapolated)
        return t + "the fit's crossing lies outside the measured " + num(p.measured_min, 0) + "\u2013" +
               num(p.measured_max, 0) + " sessions, an extrapolation; the measured figure stands";
    return t + "the fit smooths over every window while each step is judged on its own; the measured figure stands";
}

}  // namespace seatmark::report
