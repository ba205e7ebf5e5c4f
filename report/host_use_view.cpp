#include "report/host_use_view.h"

#include "report/format.h"

namespace seatmark::report {

namespace {

struct Cells {
    std::string sessions, cpu, cpu_max, gpu, mem, figures;
};

Cells cells(const StepAnalysis& s, const HostUse& u) {
    Cells c;
    // Its own sessions where known (a joined run): the step's count is every host's together.
    c.sessions = std::to_string(u.sessions.value_or(s.target));
    c.figures = u.note.empty() ? "its own samples" : u.note;
    c.cpu = opt_num(u.cpu_mean_pct, 0);
    c.cpu_max = opt_num(u.cpu_max_pct, 0);
    c.gpu = u.gpu_util_mean_pct >= 0 ? opt_num(u.gpu_util_mean_pct, 0) + " (" + u.gpu_source + ")" : "n/a";
    c.mem = u.mem_used_max_bytes >= 0 ? bytes(u.mem_used_max_bytes) : "n/a";
    return c;
}

}  // namespace

bool has_host_use(const RunAnalysis& a) {
    for (const auto& s : a.steps)
        if (!s.host_use.empty()) return true;
    return false;
}

std::string host_use_html(const RunAnalysis& a) {
    if (!has_host_use(a)) return {};
    std::string h =
        "<h2 id=\"host-use\">Host-wide use per host</h2><p class=\"muted\">Each host's own samples in the step's "
        "measurement windows; hosts' figures are not averaged together.</p><table><thead><tr><th class=\"l\">step</th>"
        "<th>sessions</th><th class=\"l\">host</th><th>CPU %<div class=\"muted\">mean</div></th><th>CPU %<div "
        "class=\"muted\">max</div></th><th>GPU %<div class=\"muted\">mean</div></th><th>memory used<div "
        "class=\"muted\">max</div></th><th class=\"l\">figures</th></tr></thead><tbody>\n";
    for (const auto& s : a.steps)
        for (const auto& u : s.host_use) {
            const Cells c = cells(s, u);
            h += "<tr><td class=\"l\">" + std::to_string(s.idx + 1) + "</td><td>" + c.sessions +
                 "</td><td class=\"l\">" + html_escape(a.host_label(u.host)) + "</td><td>" + c.cpu + "</td><td>" +
                 c.cpu_max + "</td><td>" + html_escape(c.gpu) + "</td><td>" + c.mem + "</td><td class=\"l\">" +
                 html_escape(c.figures) + "</td></tr>\n";
        }
    return h + "</tbody></table>\n";
}

std::string host_use_markdown(const RunAnalysis& a, const std::function<std::string(std::string_view)>& text) {
    if (!has_host_use(a)) return {};
    std::string m = "\n## Host-wide use per host\n\nEach host's own samples in the step's measurement windows.\n\n"
                    "| step | sessions | host | CPU % mean | CPU % max | GPU % mean | memory used max | figures |\n"
                    "|---:|---:|---|---:|---:|---:|---:|---|\n";
    for (const auto& s : a.steps)
        for (const auto& u : s.host_use) {
            const Cells c = cells(s, u);
            m += "| " + std::to_string(s.idx + 1) + " | " + c.sessions + " | " + text(a.host_label(u.host)) + " | " + c.cpu +
                 " | " + c.cpu_max + " | " + text(c.gpu) + " | " + c.mem + " | " + text(c.figures) + " |\n";
        }
    return m;
}

std::string host_roster_html(const RunAnalysis& a) {
    if (a.roster.empty()) return {};
    std::string h = "<h2 id=\"hosts\">Hosts that took part</h2><table><thead><tr><th class=\"l\">host</th>"
                    "<th class=\"l\">role</th><th>sessions</th><th class=\"l\">agent</th><th class=\"l\">figures</th>"
                    "</tr></thead><tbody>\n";
    for (const auto& p : a.roster)
        h += "<tr><td class=\"l\">" + html_escape(p.host) + "</td><td class=\"l\">" + html_escape(p.role) + "</td><td>" +
             std::to_string(p.sessions) + "</td><td class=\"l\">" + html_escape(p.agent) + "</td><td class=\"l\">" +
             html_escape(p.figures) + "</td></tr>\n";
    return h + "</tbody></table>\n";
}

std::string host_roster_markdown(const RunAnalysis& a, const std::function<std::string(std::string_view)>& text) {
    if (a.roster.empty()) return {};
    std::string m = "\n## Hosts that took part\n\n| host | role | sessions | agent | figures |\n|---|---|---:|---|---|\n";
    for (const auto& p : a.roster)
        m += "| " + text(p.host) + " | " + text(p.role) + " | " + std::to_string(p.sessions) + " | " + text(p.agent) + " | " +
             text(p.figures) + " |\n";
    return m;
}

}  // namespace seatmark::report
