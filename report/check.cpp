#include "report/check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

#include "report/format.h"
#include "report/metrics.h"

namespace seatmark::report {

namespace {

std::string fmt_value(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (!std::isfinite(v)) return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

std::string fmt_fraction(double f) {
    if (std::isinf(f)) return f > 0 ? "+inf" : "-inf";
    char b[32];
    std::snprintf(b, sizeof b, "%+.4g %%", f * 100);
    return b;
}

std::string pad(std::string s, size_t w) {
    // Pads by characters on screen (UTF-8 continuation bytes do not count).
    size_t shown = 0;
    for (unsigned char c : s) shown += (c & 0xC0) != 0x80;
    if (shown < w) s.append(w - shown, ' ');
    return s;
}

std::string xml_escape(const std::string& s) { return html_escape(s); }

std::string host_names(const RunAnalysis& a) {
    std::string t;
    for (const auto& h : a.pool.hosts) t += (t.empty() ? "" : ", ") + h.host.hostname;
    return t;
}

std::string pool_sizes(const RunAnalysis& a) {
    if (!a.pool.is_pool()) return "1";
    std::string t;
    for (const auto& p : a.pool.scaling) t += (t.empty() ? "" : ", ") + std::to_string(p.hosts);
    return t;
}

}  // namespace

size_t CheckReport::failures() const {
    return static_cast<size_t>(std::count_if(results.begin(), results.end(), [](const CheckResult& r) { return !r.pass; }));
}

CheckReport run_check(const RunAnalysis& a, const References& refs) {
    CheckReport rep;
    rep.db_path = a.db_path;
    rep.references_path = refs.source;
    rep.host = a.run.host;

    if (refs.require_finished) {
        CheckResult r;
        r.host = a.run.host;
        r.profile = "*";
        r.step = "run";
        r.metric = "run_finished";
        r.measured = a.finished() ? 1 : 0;
        r.reference = 1;
        r.low = r.high = 1;
        r.pass = a.finished();
        r.message = a.finished() ? "finished" : "the run did not finish: " + a.status_text;
        rep.results.push_back(r);
    }

    // Whom an entry speaks of: the pool (host "pool"), one host, or each host ("*"). A single-host
    // run is a pool of one: its host is the run. In a pool run a host's steps are its own, found
    // by its own session count.
    struct Scope {
        std::string host;                 // the result's label
        std::optional<size_t> pool_host;  // index into a.pool.hosts; nullopt: the run / the pool
    };
    const bool pool = a.pool.is_pool();
    auto scopes = [&](const ReferenceEntry& e) {
        std::vector<Scope> out;
        if (e.host == pool_host) {
            out.push_back({std::string(pool_host), std::nullopt});
        } else if (!pool) {
            if (e.host == "*" || e.host == a.run.host) out.push_back({a.run.host, std::nullopt});
        } else {
            for (size_t k = 0; k < a.pool.hosts.size(); ++k)
                if (e.host == "*" || e.host == a.pool.hosts[k].host.hostname) out.push_back({a.pool.hosts[k].host.hostname, k});
        }
        return out;
    };
    // Which (host, profile, step, metric) keys an exact-host entry covers: those replace "*" entries.
    std::set<std::tuple<std::string, std::string, std::string, std::string>> exact;
    for (const auto& e : refs.entries)
        if (e.host != "*")
            for (const auto& sc : scopes(e))
                for (const auto& b : e.bounds) exact.insert({sc.host, e.profile, e.step_text(), b.metric});

    size_t applied = 0;
    for (const auto& e : refs.entries)
        for (const Scope& sc : scopes(e)) {
            // The step the entry names, in the scope's own steps.
            std::optional<size_t> step;
            std::string step_label;
            std::string missing;
            const HostAnalysis* h = sc.pool_host ? &a.pool.hosts[*sc.pool_host] : nullptr;
            if (e.step) {
                step_label = std::to_string(*e.step);
                for (size_t i = 0; i < a.steps.size(); ++i)
                    if ((h ? h->steps[i].target : a.steps[i].target) == *e.step && (!h || h->steps[i].judged || !step)) step = i;
                if (!step)
                    missing = (h ? "host " + h->host.hostname + " ran no step with " : std::string("the run has no step with ")) +
                              std::to_string(*e.step) + " sessions";
                else if (h ? !h->steps[*step].judged : a.steps[*step].windows.empty())
                    missing = "the step with " + step_label + " sessions was not measured" +
                              (h && h->host.lost ? " on " + h->host.hostname + " (lost)" : "");
            } else {
                step = h ? h->max_density_step : a.max_density_step;
                step_label = "max (" + std::to_string(h ? h->max_density : a.max_density) + ")";
            }
            for (const auto& b : e.bounds) {
                if (e.host == "*" && exact.count({sc.host, e.profile, e.step_text(), b.metric})) continue;
                ++applied;
                const MetricInfo* m = find_metric(b.metric);
                const bool per_run = m && m->per_run;
                CheckResult r;
                r.host = sc.host;
                r.profile = e.profile;
                r.step = m && m->pool_only && e.hosts ? "E(" + std::to_string(*e.hosts) + ")" : per_run ? "run" : step_label;
                r.metric = b.metric;
                r.unit = m ? std::string(m->unit) : b.unit;
                r.reference = b.value;
                r.lower = b.lower;
                r.upper = b.upper;
                r.low = b.low();
                r.high = b.high();
                r.line = b.line;
                if (!per_run && !missing.empty()) {
                    r.message = missing;
                } else if (!per_run && !step) {
                    r.message = "no step passed" + (h ? " on " + h->host.hostname : std::string()) +
                                ", so there is no max-density step to compare";
                } else {
                    if (m && m->pool_only) r.measured = pool_metric_value(a, b.metric, e.hosts.value_or(0));
                    else if (h) r.measured = host_metric_value(a, *sc.pool_host, per_run ? std::nullopt : step, e.profile, b.metric);
                    else r.measured = metric_value(a, per_run ? nullptr : &a.steps[*step], e.profile, b.metric);
                    if (!std::isfinite(r.measured)) {
                        r.message = m && m->pool_only ? (b.metric == "scaling_efficiency"
                                                             ? "the run has no E(" + std::to_string(e.hosts.value_or(0)) +
                                                                   ") (pool sizes: " + pool_sizes(a) + ")"
                                                             : std::string("not known: no step every host completed"))
                                    : e.profile == "*" ? "no value in this step"
                                                       : "no session of profile '" + e.profile + "' with frames in this step";
                    } else {
                        double tol = 1e-9 * std::max(1.0, std::abs(r.reference));
                        r.pass = r.measured >= r.low - tol && r.measured <= r.high + tol;
                        if (!r.pass)
                            r.message = b.metric + " " + fmt_value(r.measured) + " " + r.unit + " is outside [" +
                                        fmt_value(r.low) + ", " + fmt_value(r.high) + "] (reference " +
                                        fmt_value(r.reference) + ", " + fmt_fraction(r.lower) + " / " + fmt_fraction(r.upper) + ")";
                    }
                }
                rep.results.push_back(std::move(r));
            }
        }
    if (applied == 0) {
        CheckResult r;
        r.host = a.run.host;
        r.profile = "*";
        r.step = "-";
        r.metric = "references";
        r.message = "no reference in " + refs.source + " applies to " +
                    (pool ? "this pool's hosts (" + host_names(a) + ")" : "host '" + a.run.host + "'") +
                    " (give host = \"*\", \"pool\" or one of the run's hosts)";
        rep.results.push_back(r);
    }
    return rep;
}

std::string check_table(const CheckReport& rep) {
    std::string out = "seatmark check: " + rep.db_path + " (host " + rep.host + ") against " + rep.references_path + "\n\n";
    std::vector<std::vector<std::string>> rows = {
        {"result", "host", "profile", "step", "metric", "measured", "reference", "lower", "upper", "allowed"}};
    for (const auto& r : rep.results) {
        std::string allowed = std::isfinite(r.reference) ? "[" + fmt_value(r.low) + ", " + fmt_value(r.high) + "]" : "";
        rows.push_back({r.pass ? "PASS" : "FAIL", r.host, r.profile, r.step, r.metric,
                        fmt_value(r.measured) + (r.unit.empty() || !std::isfinite(r.measured) ? "" : " " + r.unit),
                        fmt_value(r.reference), r.metric == "run_finished" ? "" : fmt_fraction(r.lower),
                        r.metric == "run_finished" ? "" : fmt_fraction(r.upper), allowed});
    }
    std::vector<size_t> w(rows[0].size(), 0);
    for (const auto& row : rows)
        for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
    for (size_t k = 0; k < rows.size(); ++k) {
        std::string line = "  ";
        for (size_t i = 0; i < rows[k].size(); ++i) line += pad(rows[k][i], w[i] + 2);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
        if (k > 0 && !rep.results[k - 1].pass && !rep.results[k - 1].message.empty())
            out += "        -> " + rep.results[k - 1].message + "\n";
    }
    size_t f = rep.failures();
    out += "\n" + std::to_string(rep.results.size()) + " check" + (rep.results.size() == 1 ? "" : "s") + ": " +
           std::to_string(rep.results.size() - f) + " passed, " + std::to_string(f) + " failed: " +
           (rep.passed() ? "PASS" : "FAIL") + "\n";
    return out;
}

std::string junit_xml(const CheckReport& rep) {
    const size_t n = rep.results.size(), f = rep.failures();
    std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x += "<testsuites name=\"seatmark check\" tests=\"" + std::to_string(n) + "\" failures=\"" + std::to_string(f) +
         "\" errors=\"0\">\n";
    x += "  <testsuite name=\"seatmark check " + xml_escape(rep.host) + "\" tests=\"" + std::to_string(n) +
         "\" failures=\"" + std::to_string(f) + "\" errors=\"0\" skipped=\"0\" time=\"0\" hostname=\"" +
         xml_escape(rep.host) + "\">\n";
    x += "    <properties>\n      <property name=\"database\" value=\"" + xml_escape(rep.db_path) +
         "\"/>\n      <property name=\"references\" value=\"" + xml_escape(rep.references_path) + "\"/>\n    </properties>\n";
    for (const auto& r : rep.results) {
        std::string cls = "seatmark." + (r.host == "*" ? std::string("any-host") : r.host) + "." +
                          (r.profile == "*" ? std::string("all-profiles") : r.profile) + ".step-" + r.step;
        for (char& ch : cls)
            if (ch == ' ' || ch == '(' || ch == ')') ch = '_';
        x += "    <testcase classname=\"" + xml_escape(cls) + "\" name=\"" + xml_escape(r.metric) + "\" time=\"0\">";
        std::string detail = "measured " + fmt_value(r.measured) + (r.unit.empty() ? "" : " " + r.unit) + ", reference " +
                             fmt_value(r.reference) + ", allowed [" + fmt_value(r.low) + ", " + fmt_value(r.high) + "]" +
                             (r.line ? "; " + rep.references_path + ":" + std::to_string(r.line) : "");
        if (!r.pass)
            x += "\n      <failure type=\"reference\" message=\"" + xml_escape(r.message) + "\">" + xml_escape(detail) +
                 "</failure>\n    ";
        else
            x += "<system-out>" + xml_escape(detail) + "</system-out>";
        x += "</testcase>\n";
    }
    x += "  </testsuite>\n</testsuites>\n";
    return x;
}

}  // namespace seatmark::report
