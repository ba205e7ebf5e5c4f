#include "report/pool_section.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "report/format.h"
#include "report/pool_charts.h"

namespace seatmark::report {

namespace {

std::string e(const std::string& s) { return html_escape(s); }

std::string step_label(const RunAnalysis& a, size_t i) {
    return "step " + std::to_string(a.steps[i].idx + 1) + " (" + std::to_string(a.steps[i].target) + " sessions)";
}

}  // namespace

std::string ns_text(int64_t ns) {
    const double a = std::abs(double(ns));
    char b[48];
    if (a < 1e3) std::snprintf(b, sizeof b, "%lld ns", static_cast<long long>(ns));
    else if (a < 1e6) std::snprintf(b, sizeof b, "%.1f us", double(ns) / 1e3);
    else if (a < 1e9) std::snprintf(b, sizeof b, "%.1f ms", double(ns) / 1e6);
    else std::snprintf(b, sizeof b, "%.2f s", double(ns) / 1e9);
    return b;
}

std::string offset_text(const store::HostRow& h) {
    if (!h.clock_uncertainty_ns) {
        if (h.role == store::role_joined) return "not measured";  // its only peer left before its clock round trips
        return h.clock_offset_ns == 0 ? "reference clock" : ns_text(h.clock_offset_ns) + " (same clock)";
    }
    return (h.clock_offset_ns >= 0 ? "+" : "") + ns_text(h.clock_offset_ns) + " \u00b1 " + ns_text(*h.clock_uncertainty_ns);
}

std::string first_failure_text(const RunAnalysis& a) {
    const auto& f = a.pool.first_failure;
    if (!f) return a.pool.is_pool() ? "no host failed a step" : "";
    std::string also;
    for (const auto& h : f->also) also += (also.empty() ? "" : ", ") + h;
    return f->host + " failed first, in " + step_label(a, f->step) + ", with " + std::to_string(f->host_sessions) +
           " of its sessions: " + f->reason + (also.empty() ? "" : " (" + also + " failed in the same step)");
}

std::string fairness_text(const RunAnalysis& a) {
    const auto& p = a.pool;
    if (!p.is_pool()) return "";
    if (!p.fairness_step) return "not known: no step every host completed was measured";
    if (std::isnan(p.fairness)) return "not known in " + step_label(a, *p.fairness_step) + ": a host had no frames";
    std::string t = "Jain " + num(p.fairness, 3) + " over the hosts' median FPS in " + step_label(a, *p.fairness_step) + " (";
    for (size_t i = 0; i < p.hosts.size(); ++i) t += (i ? ", " : "") + p.hosts[i].host.hostname + " " + num(p.hosts[i].median_fps);
    return t + "; 1 = every host delivers the same)";
}

std::string skew_text(const RunAnalysis& a) {
    const auto& p = a.pool;
    if (!p.is_pool()) return "";
    int64_t unc = 0;
    for (const auto& h : p.hosts) unc = std::max(unc, h.host.clock_uncertainty_ns.value_or(0));
    if (!p.window_skew_ns) return "not known: no host's own window times were stored";
    return "every host's windows opened within " + ns_text(*p.window_skew_ns) +
           " of the reference host's (largest clock uncertainty " + ns_text(unc) + ")";
}

std::string scaling_text(const RunAnalysis& a) {
    const auto& p = a.pool;
    if (p.scaling.size() < 2) return "";
    std::string t;
    uint32_t one = 0;
    for (const auto& s : p.scaling)
        if (s.hosts == 1) one = s.max_sessions;
    for (const auto& s : p.scaling) {
        if (s.hosts == 1) continue;
        t += (t.empty() ? "" : "; ") + std::string("E(") + std::to_string(s.hosts) + ") = " + num(s.efficiency, 2) + ": " +
             std::to_string(s.max_sessions) + " passing sessions on " + std::to_string(s.hosts) + " hosts against " +
             std::to_string(s.hosts) + " \u00d7 " + std::to_string(one);
    }
    if (p.scaling_estimated())
        t += " (one host: the best host's own max density in this run, as the run had no [scaling] series)";
    if (p.complete_steps < a.steps.size())
        t += "; over the " + std::to_string(p.complete_steps) + " step(s) every host completed";
    return t;
}

std::vector<std::string> lost_texts(const RunAnalysis& a) {
    std::vector<std::string> out;
    for (const auto& h : a.pool.hosts)
        if (h.host.lost) {
            std::string t = h.host.hostname + " was lost";
            if (h.host.lost_step) t += " in step " + std::to_string(*h.host.lost_step + 1);
            if (h.host.lost_detail) t += ": " + *h.host.lost_detail;
            out.push_back(t + "; the pool did not pass that step or any later one");
        }
    return out;
}

std::string pool_html(const RunAnalysis& a) {
    const auto& p = a.pool;
    if (!p.is_pool()) return "";
    std::string h = "<h2 id=\"pool\">Pool of " + std::to_string(p.hosts.size()) + " hosts</h2>\n";
    for (const auto& l : lost_texts(a)) h += "<div class=\"banner warn\">\u26a0 " + e(l) + "</div>\n";
    h += "<div class=\"facts\">";
    h += "<div><b>Pool verdict</b>a step passes when every host passed it; max density " + std::to_string(a.max_density) +
         " sessions in the pool.</div>";
    h += "<div><b>Failed first</b>" + e(first_failure_text(a)) + ".</div>";
    h += "<div><b>Fairness</b>" + e(fairness_text(a)) + ".</div>";
    h += "<div><b>Window skew</b>" + e(skew_text(a)) + ".</div>";
    if (!p.scaling.empty()) h += "<div><b>Scaling</b>" + e(scaling_text(a)) + ".</div>";
    h += "</div>\n";

    h += "<table class=\"hosts\"><thead><tr><th class=\"l\">host</th><th>rank</th><th class=\"l\">role</th>"
         "<th>clock offset<div class=\"muted\">\u00b1 uncertainty</div></th><th class=\"l\">status</th><th>sessions</th>"
         "<th>max density<div class=\"muted\">sessions on it</div></th><th class=\"l\">first failure</th></tr></thead><tbody>\n";
    for (size_t k = 0; k < p.hosts.size(); ++k) {
        const HostAnalysis& x = p.hosts[k];
        std::string ff = "none";
        if (x.first_fail_step) {
            const HostStep& s = x.steps[*x.first_fail_step];
            ff = step_label(a, *x.first_fail_step) + ": " +
                 (s.lost_here ? std::string("lost") : s.verdict.reasons.empty() ? std::string("failed") : s.verdict.reasons.front());
        }
        h += std::string("<tr") + (x.host.lost ? " class=\"fail\"" : "") + "><td class=\"l\"><b style=\"color:" +
             host_colour(k) + "\">\u25a0</b> " + e(x.host.hostname) + "</td><td>" +
             (x.host.rank ? std::to_string(*x.host.rank) : "\u2014") + "</td><td class=\"l\">" + e(x.host.role) + "</td><td>" +
             e(offset_text(x.host)) + "</td><td class=\"l\">" +
             (x.host.lost ? "<b style=\"color:#c62828\">lost</b>" : std::string("ok")) + "</td><td>" +
             std::to_string(x.sessions) + "</td><td><b>" + std::to_string(x.max_density) + "</b></td><td class=\"l reason\">" +
             e(ff) + "</td></tr>\n";
    }
    h += "</tbody></table>\n";

    // Per step: each host's density and verdict.
    const bool series = std::any_of(a.steps.begin(), a.steps.end(), [&](const StepAnalysis& s) { return s.pool_hosts != a.steps.front().pool_hosts; });
    h += "<h3>Density and verdict per step and host</h3><table class=\"pool-steps\"><thead><tr><th class=\"l\">step</th>" +
         std::string(series ? "<th>hosts</th>" : "") + "<th>pool sessions</th><th class=\"l\">pool</th>";
    for (const auto& x : p.hosts) h += "<th class=\"l\">" + e(x.host.hostname) + "<div class=\"muted\">sessions, p95 ms</div></th>";
    h += "</tr></thead><tbody>\n";
    for (size_t i = 0; i < a.steps.size(); ++i) {
        const StepAnalysis& s = a.steps[i];
        auto pill = [](bool measured, bool pass) {
            return !measured ? std::string("<span class=\"pill none\">n/a</span>")
                             : pass ? std::string("<span class=\"pill pass\">pass</span>") : std::string("<span class=\"pill fail\">fail</span>");
        };
        h += "<tr><td class=\"l\">" + std::to_string(s.idx + 1) + "</td>" + (series ? "<td>" + std::to_string(s.pool_hosts) + "</td>" : std::string()) +
             "<td>" + std::to_string(s.target) + "</td><td class=\"l\">" +
             pill(!s.windows.empty(), s.verdict.pass) + "</td>";
        for (const auto& x : p.hosts) {
            const HostStep& hs = x.steps[i];
            std::string cell;
            if (hs.lost_here) cell = "<b style=\"color:#c62828\">lost here</b>";
            else if (hs.idle) cell = "<span class=\"muted\">idle (series)</span>";
            else if (!hs.judged) cell = "<span class=\"muted\">\u2014</span>";
            else {
                cell = pill(true, hs.verdict.pass) + " " + std::to_string(hs.target) + ", " + num(hs.verdict.p95_median_ms);
                if (!hs.verdict.pass && !hs.verdict.reasons.empty()) cell += "<div class=\"reason\">" + e(hs.verdict.reasons.front()) + "</div>";
                if (!hs.disagreements.empty())
                    cell += "<div class=\"muted\">stored row differs: " + e(hs.disagreements.front().substr(0, hs.disagreements.front().find(':'))) + "</div>";
            }
            h += "<td class=\"l\">" + cell + "</td>";
        }
        h += "</tr>\n";
    }
    h += "</tbody></table>\n";

    h += "<div class=\"grid2\" style=\"margin-top:14px\">";
    h += "<figure><h3>p95 frame interval vs sessions, per host</h3>" + host_p95_chart(a) +
         "<figcaption>Each host's own steps: the median over its sessions of per-session p95 frame interval against the "
         "sessions it ran (dots pass, crosses fail). Red dashed: the SLA bound.</figcaption></figure>";
    h += "<figure><h3>Scaling efficiency E(H)</h3>" + scaling_chart(a) +
         "<figcaption>E(H) = passing sessions on H hosts / (H \u00d7 passing sessions on one host), over the steps every "
         "host completed. Grey dashed: the ideal, H \u00d7 one host.</figcaption></figure>";
    h += "</div>\n";
    return h;
}

std::string pool_markdown(const RunAnalysis& a, const std::function<std::string(std::string_view)>& md) {
    const auto& p = a.pool;
    if (!p.is_pool()) return "";
    std::string m = "\n## Pool of " + std::to_string(p.hosts.size()) + " hosts\n\n";
    for (const auto& l : lost_texts(a)) m += "- **" + md(l) + "**\n";
    m += "- Failed first: " + md(first_failure_text(a)) + "\n";
    m += "- Fairness: " + md(fairness_text(a)) + "\n";
    m += "- Window skew: " + md(skew_text(a)) + "\n";
    if (!p.scaling.empty()) m += "- Scaling: " + md(scaling_text(a)) + "\n";
    m += "\n| host | rank | clock offset | status | sessions | max density | first failure |\n|---|---|---|---|---|---|---|\n";
    for (const auto& x : p.hosts)
        m += "| " + md(x.host.hostname) + " | " + (x.host.rank ? std::to_string(*x.host.rank) : "-") + " | " +
             md(offset_text(x.host)) + " | " + (x.host.lost ? "lost" : "ok") + " | " + std::to_string(x.sessions) + " | " +
             std::to_string(x.max_density) + " | " +
             (x.first_fail_step ? "step " + std::to_string(a.steps[*x.first_fail_step].idx + 1) : std::string("none")) + " |\n";
    m += "\n| step | pool sessions | pool |";
    for (const auto& x : p.hosts) m += " " + md(x.host.hostname) + " |";
    m += "\n|---|---|---|";
    for (size_t k = 0; k < p.hosts.size(); ++k) m += "---|";
    m += "\n";
    for (size_t i = 0; i < a.steps.size(); ++i) {
        const StepAnalysis& s = a.steps[i];
        m += "| " + std::to_string(s.idx + 1) + " | " + std::to_string(s.target) + " | " +
             (s.windows.empty() ? "n/a" : s.verdict.pass ? "pass" : "fail") + " |";
        for (const auto& x : p.hosts) {
            const HostStep& hs = x.steps[i];
            m += " " + (hs.lost_here ? std::string("lost") : hs.idle ? std::string("idle")
                        : !hs.judged ? std::string("-")
                                     : std::string(hs.verdict.pass ? "pass" : "fail") + " " + std::to_string(hs.target) +
                                           " (p95 " + num(hs.verdict.p95_median_ms) + " ms)") +
                 " |";
        }
        m += "\n";
    }
    return m;
}

}  // namespace seatmark::report
