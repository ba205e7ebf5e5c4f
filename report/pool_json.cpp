#include "report/pool_json.h"

#include <cmath>

#include "report/pool_section.h"

namespace seatmark::report {

namespace {

using nlohmann::json;

json jnum(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
template <class T>
json jopt(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json pool_json(const RunAnalysis& a) {
    const PoolAnalysis& p = a.pool;
    if (!p.is_pool()) return nullptr;
    json j;
    j["hosts"] = json::array();
    for (const HostAnalysis& h : p.hosts) {
        json x = {{"hostname", h.host.hostname}, {"rank", jopt(h.host.rank)}, {"role", h.host.role},
                  {"clock_offset_ns", h.host.clock_offset_ns}, {"clock_uncertainty_ns", jopt(h.host.clock_uncertainty_ns)},
                  {"status", h.host.lost ? "lost" : "ok"}, {"lost_step", h.host.lost_step ? json(*h.host.lost_step + 1) : json(nullptr)},
                  {"lost_detail", jopt(h.host.lost_detail)}, {"sessions", h.sessions}, {"max_density", h.max_density},
                  {"max_density_step", h.max_density_step ? json(a.steps[*h.max_density_step].idx + 1) : json(nullptr)},
                  {"first_fail_step", h.first_fail_step ? json(a.steps[*h.first_fail_step].idx + 1) : json(nullptr)},
                  {"median_fps", jnum(h.median_fps)}};
        x["steps"] = json::array();
        for (const HostStep& s : h.steps) {
            json st = {{"step", s.idx + 1}, {"sessions", s.target}, {"judged", s.judged}, {"lost_here", s.lost_here}, {"idle", s.idle}};
            st["verdict"] = s.lost_here ? "lost" : s.idle ? "idle" : !s.judged ? "not-judged" : (s.verdict.pass ? "pass" : "fail");
            if (s.judged) {
                st["fps_median"] = jnum(s.verdict.fps_median);
                st["p95_ms"] = jnum(s.verdict.p95_median_ms);
                st["p95_worst_ms"] = jnum(s.verdict.p95_worst_ms);
                st["failures"] = s.verdict.failures;
                st["reasons"] = s.verdict.reasons;
                st["host_cpu_mean_pct"] = s.host_cpu_mean_pct >= 0 ? json(s.host_cpu_mean_pct) : json(nullptr);
                st["agrees_with_stored"] = s.stored ? json(s.disagreements.empty()) : json(nullptr);
                st["disagreements"] = s.disagreements;
            }
            x["steps"].push_back(st);
        }
        j["hosts"].push_back(x);
    }
    j["complete_steps"] = p.complete_steps;
    j["fairness"] = jnum(p.fairness);
    j["fairness_step"] = p.fairness_step ? json(a.steps[*p.fairness_step].idx + 1) : json(nullptr);
    j["fairness_text"] = fairness_text(a);
    if (p.first_failure)
        j["first_failure"] = {{"host", p.first_failure->host}, {"step", a.steps[p.first_failure->step].idx + 1},
                              {"host_sessions", p.first_failure->host_sessions}, {"reason", p.first_failure->reason},
                              {"also", p.first_failure->also}};
    else
        j["first_failure"] = nullptr;
    j["window_skew_ns"] = jopt(p.window_skew_ns);
    j["window_skew_text"] = skew_text(a);
    j["scaling"] = json::array();
    for (const ScalingPoint& s : p.scaling)
        j["scaling"].push_back({{"hosts", s.hosts}, {"max_sessions", s.max_sessions}, {"efficiency", jnum(s.efficiency)},
                                {"estimated", s.estimated}});
    j["scaling_text"] = scaling_text(a);
    j["lost"] = lost_texts(a);
    return j;
}

}  // namespace seatmark::report
