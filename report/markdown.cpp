#include "report/markdown.h"

#include <cctype>

#include "report/capacity_model.h"
#include "report/endpoint_view.h"
#include "report/html_capacity.h"
#include "report/format.h"
#include "report/host_use_view.h"
#include "report/html.h"
#include "report/pool_section.h"
#include "report/words.h"

namespace seatmark::report {

namespace {
// Table cells may not hold a pipe or a line break.
std::string cell(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

// Text that came from the run (plan name, host and device names, event details) as literal
// Markdown: no raw HTML (a plan named "<script>..." stays text in every viewer), no emphasis,
// links or code spans, no table breaks. Only what could start markup is escaped: '<' before a
// letter, '/', '!' or '?' (a tag, comment or autolink) and '&' before a letter or '#' (an
// entity); "p95 40 ms > 33.3 ms" stays as written, which the file is read as too (it showed
// "&gt;"). A '>' only quotes at the start of a line, where a leading one is escaped.
std::string text(std::string_view s) {
    std::string out;
    auto next_is = [&](size_t i, std::string_view also) {
        if (i + 1 >= s.size()) return false;
        const unsigned char n = static_cast<unsigned char>(s[i + 1]);
        return std::isalpha(n) || also.find(char(n)) != std::string_view::npos;
    };
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        switch (c) {
            case '<': out += next_is(i, "/!?") ? "&lt;" : "<"; break;
            case '&': out += next_is(i, "#") ? "&amp;" : "&"; break;
            case '>': out += i == 0 ? "\\>" : ">"; break;
            case '\n': case '\r': out += ' '; break;
            case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '#': case '!':
                out += '\\';
                out += c;
                break;
            default: out += c;
        }
    }
    return out;
}
}  // namespace

std::string render_markdown(const RunAnalysis& a) {
    Headline hl = headline(a);
    std::string m;
    m += "# seatmark density report: " + (a.plan_name.empty() ? std::string("run") : text(a.plan_name)) + " on " + text(a.run.host) + "\n\n";
    for (const auto& w : hl.warnings) m += "> **Warning:** " + text(w) + "\n>\n";
    if (!hl.warnings.empty()) m += "\n";
    m += "**Max density: " + hl.density + "** " +
         (a.pool.is_pool() ? "in the pool of " + std::to_string(a.pool.hosts.size()) + " hosts" : std::string("per host")) + ".  \n";
    m += "_" + hl.density_rule + "._\n\n";
    m += "- **Service level:** " + hl.sla + "\n";
    m += "- **Knee (VSImax-style):** " + hl.knee + "\n";
    m += "- **Run:** " + hl.status + "; " + hl.measured + "; started " + utc_text(a.run.started_unix_ns) + "\n";
    m += "- **Host:** " + text(hl.host) + "\n";
    for (const auto& d : hl.devices) m += "- **Device:** " + text(d) + "\n";
    m += "\n## Steps\n\n";
    m += "| step | sessions | FPS median (min..max) | FPS 95 % CI | p50 / p95 / p99 ms | p95 worst ms | 1 % low worst | "
         "latency p95 worst ms | stutter worst | dropped | failures | fairness | host CPU % | verdict |\n";
    m += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n";
    for (const auto& s : a.steps) {
        const auto& v = s.verdict;
        m += "| " + std::to_string(s.idx + 1) + " | " + std::to_string(s.target) + " | ";
        if (s.windows.empty()) {
            m += "| | | | | | | | | | | not measured |\n";
            continue;
        }
        m += num(v.fps_median) + " (" + num(v.fps_min) + ".." + num(v.fps_max) + ") | " + interval_text(s.fps_ci) + " | " +
             num(s.p50_median_ms) + " / " + num(v.p95_median_ms) + " / " + num(s.p99_median_ms) + " | " +
             num(v.p95_worst_ms) + " | " + num(v.low1_worst_fps) + " | " +
             (v.latency_p95_worst_ms > 0 ? num(v.latency_p95_worst_ms) : "n/a") + " | " + pct(v.stutter_worst) + " | " +
             std::to_string(v.dropped) + " | " + failures_text(v.failures_by_reason) + " | " + num(v.fairness, 3) + " | " +
             (s.host_use.empty() ? opt_num(s.host_cpu_mean_pct, 0) : std::string("per host")) + " | " +
             cell(verdict_text(s)) + " |\n";
    }
    m += host_roster_markdown(a, [](std::string_view s) { return text(s); });
    m += host_use_markdown(a, [](std::string_view s) { return text(s); });
    m += pool_markdown(a, [](std::string_view s) { return text(s); });
    if (a.search.adaptive) m += "\n## Adaptive search\n\n" + text(search_text(a)) + "\n";
    if (a.bottleneck_step) {
        const auto& t = a.steps[*a.bottleneck_step].attribution;
        m += "\n## What ran out\n\n**" + text(t.headline) + ".**\n\n- Frames: " + text(t.frames_text) + "\n";
        for (const auto& c : t.context) m += "- " + text(c) + "\n";
        for (const auto& n : t.not_judged) m += "- Not judged: " + text(n.name) + ": " + text(n.why) + "\n";
    }
    const CapacityAnalysis cap = model_capacity(a);
    m += "\n## Capacity model\n\n- " + text(usl_text(cap)) + "\n- " + text(crossing_text(cap)) + "\n";
    if (const std::string d = density_agreement(a, cap); !d.empty()) m += "- Measured and predicted differ: " + text(d) + "\n";
    for (const auto& l : cap.cost)
        m += "- Cost " + text(l.scope) + ": " + num(l.per_hour, 2) + " " + text(cap.currency) + "/h / " +
             std::to_string(l.users) + " users = " +
             (l.per_user_hour ? num(*l.per_user_hour, 3) + " " + text(cap.currency) + " per user-hour" : std::string("n/a")) + "\n";
    if (!cap.cost_note.empty()) m += "- Cost note: " + text(cap.cost_note) + "\n";
    if (!cap.tiers.empty()) {
        m += "- Sizing guidance (Microsoft multi-session, " + std::to_string(cap.vcpus) + " vCPUs):";
        for (const auto& t : cap.tiers) m += " " + t.name + " " + std::to_string(t.users);
        m += " users; measured: " + std::to_string(a.max_density) + " CAD sessions\n";
    }
    if (!cap.sizing_note.empty()) m += "- Note: " + text(cap.sizing_note) + "\n";
    if (!a.marks.empty()) {
        m += "\n## Failures and run events\n\n";
        for (const auto& mk : a.marks)
            m += "- " + num(mk.t_s, 1) + " s: " + (mk.session_id ? "session " + std::to_string(*mk.session_id) + " " : "run ") +
                 "**" + text(mk.kind) + "**" + (mk.detail.empty() ? "" : ": " + text(mk.detail)) + "\n";
    }
    m += endpoint_markdown(a);
    m += "\n## Definitions\n\n";
    for (const auto& d : definitions()) m += "- **" + d.name + "**: " + d.text + "\n";
    m += "\nCharts: index.html. Data: steps.csv, sessions.csv, report.json. Database: " + text(a.db_path) + "\n";
    return m;
}

}  // namespace seatmark::report
