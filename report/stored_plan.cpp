#include "report/stored_plan.h"

#include <cmath>

#include <utility>

#include <toml++/toml.h>

#include "common/errors.h"
#include "common/toml_util.h"
#include "core/plan.h"

namespace seatmark::report {

namespace {

// An integer key, or `fallback`. Not value_or(int64_t): toml++ casts a float such as 4e111 to
// int64 unchecked (undefined behaviour), and a stored plan is input like any other.
int64_t integer_or(toml::node_view<const toml::node> n, int64_t fallback) {
    const auto* i = n.as_integer();
    return i ? i->get() : fallback;
}

// Reads the SLA straight from the TOML when the plan as a whole cannot be parsed here
// (for example a profile file that exists only on the host that ran it).
void read_leniently(StoredPlan& a, const std::string& text) {
    toml::table doc;
    try {
        doc = toml_util::parse(text, "plan");  // nesting bounded: the stored text is input like any other
    } catch (const InputError&) {
        a.note += "; it is not valid TOML either: the default SLA is shown";
        return;
    }
    a.name = doc["name"].value_or(std::string());
    a.knee_margin_pct = doc["run"]["knee_margin_pct"].value_or(a.knee_margin_pct);
    if (auto* list = doc["steps"]["list"].as_array())
        for (auto& el : *list)
            if (const auto* v = el.as_integer()) a.steps.push_back(static_cast<uint32_t>(v->get()));
    a.repeats = static_cast<uint32_t>(integer_or(std::as_const(doc)["steps"]["repeats"], 1));
    if (auto c = doc["cost"]["host_per_hour"].value<double>(); c && std::isfinite(*c) && *c >= 0) a.host_per_hour = *c;
    if (auto c = doc["cost"]["currency"].value<std::string>()) a.currency = *c;
    auto read = [](const toml::table& t, Sla s) {
        s.p95_interval_ms = t["p95_interval_ms"].value_or(s.p95_interval_ms);
        s.low1_fps = t["low1_fps"].value_or(s.low1_fps);
        s.latency_p95_ms = t["latency_p95_ms"].value_or(s.latency_p95_ms);
        s.stutter_pct = t["stutter_pct"].value_or(s.stutter_pct);
        s.failures = static_cast<uint32_t>(integer_or(t["failures"], int64_t(s.failures)));
        s.gpu_memory_pct = t["gpu_memory_pct"].value_or(s.gpu_memory_pct);
        s.model_open_ms = t["model_open_ms"].value_or(s.model_open_ms);
        s.endpoint_fps = t["endpoint_fps"].value_or(s.endpoint_fps);
        s.endpoint_latency_p95_ms = t["endpoint_latency_p95_ms"].value_or(s.endpoint_latency_p95_ms);
        s.delivered_ratio = t["delivered_ratio"].value_or(s.delivered_ratio);
        s.ssim = t["ssim"].value_or(s.ssim);
        return s;
    };
    if (auto* sla = doc["sla"].as_table()) {
        a.default_sla = read(*sla, a.default_sla);
        for (auto& [k, v] : *sla)
            if (auto* sub = v.as_table()) a.sla[std::string(k.str())] = read(*sub, a.default_sla);
    }
}

}  // namespace

StoredPlan read_stored_plan(const std::string& text, const std::string& db_path) {
    StoredPlan a;
    try {
        core::Plan p = core::parse_plan(text, "plan stored in " + db_path);
        a.name = p.name;
        a.default_sla = p.default_sla;
        a.sla = p.sla;
        a.knee_margin_pct = p.knee_margin_pct;
        a.steps = p.steps;
        a.repeats = p.repeats;
        a.search = p.search;
        a.host_per_hour = p.cost.host_per_hour;
        a.currency = p.cost.currency;
    } catch (const InputError& e) {
        a.note = std::string("the stored plan could not be re-read in full (") + e.what() +
                 "); its SLA and knee margin were read from the TOML directly";
        read_leniently(a, text);
    }
    return a;
}

}  // namespace seatmark::report
