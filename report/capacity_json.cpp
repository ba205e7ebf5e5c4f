#include "report/capacity_json.h"

#include <cmath>

namespace seatmark::report {

using nlohmann::json;

namespace {
json jnum(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
template <class T>
json jopt(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }
}  // namespace

json attribution_json(const core::Attribution& a) {
    json j;
    j["headline"] = a.headline;
    j["binding"] = a.binding ? json(a.resources[*a.binding].name) : json(nullptr);
    j["binding_busy_pct"] = a.binding ? jnum(a.resources[*a.binding].busy_pct) : json(nullptr);
    j["resources"] = json::array();
    for (const auto& r : a.resources)
        j["resources"].push_back({{"name", r.name}, {"busy_pct", jnum(r.busy_pct)}, {"figure", r.figure}, {"source", r.source}});
    j["not_judged"] = json::array();
    for (const auto& n : a.not_judged) j["not_judged"].push_back({{"name", n.name}, {"why", n.why}});
    j["context"] = a.context;
    j["frames"] = core::to_string(a.frames);
    j["frames_text"] = a.frames_text;
    return j;
}

json capacity_json(const RunAnalysis& a, const CapacityAnalysis& c) {
    json j;
    j["bottleneck"] = a.bottleneck_step ? attribution_json(a.steps[*a.bottleneck_step].attribution) : json(nullptr);
    j["bottleneck_step"] = a.bottleneck_step ? json(a.steps[*a.bottleneck_step].idx + 1) : json(nullptr);
    json usl = {{"fitted", c.usl.ok}, {"why", c.usl.why}, {"points", c.usl.points}};
    if (c.usl.ok) {
        usl["lambda_fps"] = jnum(c.usl.lambda);
        usl["sigma"] = jnum(c.usl.sigma);
        usl["kappa"] = jnum(c.usl.kappa);
        usl["r2"] = jnum(c.usl.r2);
        usl["peak_sessions"] = jopt(c.usl.peak_sessions());
    }
    j["usl"] = usl;
    const auto& p = c.crossing;
    json cr = {{"predicted", p.ok}, {"why", p.why}, {"figure", c.p95_label}, {"bound", jnum(p.bound_ms)}};
    if (p.ok) {
        cr["fit"] = {{"a", jnum(p.fit.a)}, {"b", jnum(p.fit.b)}, {"c", jnum(p.fit.c)}, {"r2", jnum(p.fit.r2)}};
        cr["crossing_sessions"] = jopt(p.crossing);
        cr["predicted_max_density"] = jopt(p.predicted_max);
        cr["ci95"] = p.ci_available ? json{{"lo", jnum(p.ci_lo)}, {"hi", jopt(p.ci_hi)}} : json(nullptr);
        cr["resamples"] = p.resamples_used;
        cr["extrapolated"] = p.extrapolated;
        cr["measured_sessions"] = {jnum(p.measured_min), jnum(p.measured_max)};
        cr["above_bound_at_one_session"] = p.above_at_one;
        const std::string d = density_agreement(a, c);
        cr["why_measured_differs"] = d.empty() ? json(nullptr) : json(d);
    }
    j["sla_crossing"] = cr;
    json cost = json::array();
    for (const auto& l : c.cost)
        cost.push_back({{"scope", l.scope}, {"users", l.users}, {"per_hour", jnum(l.per_hour)},
                        {"per_user_hour", jopt(l.per_user_hour)}, {"currency", c.currency}});
    j["cost"] = cost;
    json tiers = json::array();
    for (const auto& t : c.tiers) tiers.push_back({{"tier", t.name}, {"users_per_vcpu", t.users_per_vcpu}, {"users", t.users}});
    j["sizing_guidance"] = {{"source", "Microsoft multi-session sizing tiers (users per vCPU)"},
                            {"vcpus", c.vcpus}, {"tiers", tiers}, {"note", c.sizing_note}};
    return j;
}

}  // namespace seatmark::report
