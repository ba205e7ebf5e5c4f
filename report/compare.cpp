#include "report/compare.h"

#include <cmath>
#include <cstdio>
#include <set>

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
    return std::string(tag) + ": " + r.db_path + "  host " + r.run.host + ", " + dev + ", " + r.status_text + ", max density " +
           std::to_string(r.max_density) + "\n";
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
           pad("B - A", 11, true) + pad("B - A %", 11, true) + "\n";
    for (uint32_t t : targets(a, b)) {
        const StepAnalysis* sa = step_with(a, t);
        const StepAnalysis* sb = step_with(b, t);
        bool first = true;
        for (const char* m : compared) {
            double va = metric_value(a, sa, "*", m), vb = metric_value(b, sb, "*", m);
            int d = digits_for(m);
            out += "  " + pad(first ? std::to_string(t) : "", 9) + pad(m, 16) + pad(num(va, d), 11, true) +
                   pad(num(vb, d), 11, true) + pad(signed_num(vb - va, d), 11, true) + pad(diff_pct(va, vb), 11, true) +
                   "\n";
            first = false;
        }
        out += "  " + pad("", 9) + pad("verdict", 16) + pad(verdict_word(sa), 11, true) + pad(verdict_word(sb), 11, true) +
               "\n\n";
    }
    out += "Metrics: ";
    bool first = true;
    for (const char* m : compared) {
        const MetricInfo* info = find_metric(m);
        out += std::string(first ? "" : "; ") + m + " [" + std::string(info->unit) + "] " + std::string(info->text);
        first = false;
    }
    out += ".\n";
    return out;
}

json compare_json(const RunAnalysis& a, const RunAnalysis& b) {
    auto jn = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
    json j;
    j["a"] = {{"db", a.db_path}, {"host", a.run.host}, {"status", std::string(store::to_string(a.status))},
              {"max_density", a.max_density}};
    j["b"] = {{"db", b.db_path}, {"host", b.run.host}, {"status", std::string(store::to_string(b.status))},
              {"max_density", b.max_density}};
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
            s[m] = d;
        }
        j["steps"].push_back(s);
    }
    return j;
}

}  // namespace seatmark::report
