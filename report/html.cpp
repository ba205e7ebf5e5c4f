#include "report/html.h"

#include <cmath>
#include <ctime>

#include "report/charts.h"
#include "report/endpoint_view.h"
#include "report/format.h"
#include "report/host_use_view.h"
#include "report/html_capacity.h"
#include "report/pool_section.h"
#include "report/words.h"

namespace seatmark::report {

namespace {

constexpr const char* css = R"css(
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2328;background:#f4f6f8}
main{max-width:1220px;margin:0 auto;padding:0 20px 40px}
header{background:#1f2a36;color:#fff;padding:14px 20px;margin-bottom:18px}
header .in{max-width:1180px;margin:0 auto;display:flex;justify-content:space-between;align-items:baseline;gap:16px;flex-wrap:wrap}
header h1{font-size:20px;margin:0;font-weight:650}
header .meta{color:#c7d0da;font-size:13px}
h2{font-size:18px;margin:28px 0 10px;padding-bottom:4px;border-bottom:2px solid #dde3ea}
.banner{border-radius:8px;padding:11px 16px;margin:8px 0;font-weight:600;border-left:6px solid}
.banner.bad{background:#fdecea;border-color:#c62828;color:#8e1b1b}
.banner.warn{background:#fff4e0;border-color:#ef8f00;color:#7a4a00}
.cards{display:grid;grid-template-columns:1.35fr 1fr 1fr 1fr;gap:14px;margin:14px 0}
.card{background:#fff;border-radius:10px;padding:14px 16px;box-shadow:0 1px 3px #0000001f;border-top:5px solid #90a4ae}
.card .label{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:#5f6b76;font-weight:600}
.card .value{font-size:30px;font-weight:750;margin:2px 0 4px;line-height:1.15}
.card .value.small{font-size:19px}
.card .sub{font-size:12.5px;color:#4a5561}
.card.good{border-top-color:#2e7d32}.card.good .value{color:#2e7d32}
.card.bad{border-top-color:#c62828}.card.bad .value{color:#c62828}
.card.warn{border-top-color:#ef8f00}.card.warn .value{color:#b36200}
.card.knee{border-top-color:#e65100}
.card.big .value{font-size:44px}
.facts{background:#fff;border-radius:10px;padding:12px 16px;box-shadow:0 1px 3px #0000001f;font-size:13px}
.facts div{margin:2px 0}.facts b{display:inline-block;min-width:110px;margin-right:6px;color:#37424d}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:14px}
figure{margin:0;background:#fff;border-radius:10px;padding:12px 12px 8px;box-shadow:0 1px 3px #0000001f}
figure h3{margin:0 0 4px;font-size:15px}
figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:12px;color:#5f6b76;margin-top:4px}
table{border-collapse:collapse;background:#fff;width:100%;font-size:12.5px;box-shadow:0 1px 3px #0000001f;border-radius:8px;overflow:hidden}
th,td{padding:6px 8px;border-bottom:1px solid #e8ecf0;text-align:right;vertical-align:top}
th{background:#eef2f6;font-weight:650;color:#37424d;font-size:12px}
td.l,th.l{text-align:left}
tr.fail td{background:#fff5f5}
tr.max td{background:#eefaf0}
.pill{display:inline-block;border-radius:10px;padding:1px 9px;font-weight:700;font-size:12px;color:#fff}
.pill.pass{background:#2e7d32}.pill.fail{background:#c62828}.pill.none{background:#9e9e9e}
.reason{color:#8e1b1b;font-size:11.5px;text-align:left;max-width:260px}
.muted{color:#7a8590;font-size:11.5px}
dl{background:#fff;border-radius:10px;padding:12px 16px;box-shadow:0 1px 3px #0000001f;display:grid;grid-template-columns:210px 1fr;gap:4px 14px;font-size:13px}
dt{font-weight:650}dd{margin:0;color:#37424d}
footer{color:#7a8590;font-size:12px;margin-top:26px}
)css";

std::string e(const std::string& s) { return html_escape(s); }

std::string td(const std::string& v, const std::string& cls = {}) {
    return "<td" + (cls.empty() ? std::string() : " class=\"" + cls + "\"") + ">" + v + "</td>";
}

std::string step_rows(const RunAnalysis& a) {
    std::string h;
    for (size_t k = 0; k < a.steps.size(); ++k) {
        const auto& s = a.steps[k];
        const auto& v = s.verdict;
        bool is_max = a.max_density_step && *a.max_density_step == k;
        h += "<tr class=\"" + std::string(is_max ? "max" : (!v.pass ? "fail" : "")) + "\">";
        h += td(std::to_string(s.idx + 1), "l");
        h += td("<b>" + std::to_string(s.target) + "</b>" + (v.sessions.size() != s.target && !s.windows.empty()
                                                                  ? "<div class=\"muted\">" + std::to_string(v.sessions.size()) + " judged</div>"
                                                                  : ""));
        if (s.windows.empty()) {
            h += "<td colspan=\"11\" class=\"l muted\">not measured: the run ended before this step's window closed</td>";
        } else {
            h += td(num(v.fps_median) + "<div class=\"muted\">" + num(v.fps_min) + "\u2013" + num(v.fps_max) + "</div>");
            h += td(s.fps_ci.available() ? num(s.fps_ci.lo) + "\u2013" + num(s.fps_ci.hi)
                                         : "<span class=\"muted\">" + e(interval_text(s.fps_ci)) + "</span>");
            h += td(num(s.p50_median_ms) + " / <b>" + num(v.p95_median_ms) + "</b> / " + num(s.p99_median_ms) +
                    (s.p95_ci.available() ? "<div class=\"muted\">p95 CI " + num(s.p95_ci.lo) + "\u2013" + num(s.p95_ci.hi) + "</div>" : ""));
            h += td(num(v.p95_worst_ms));
            h += td(num(v.low1_worst_fps));
            h += td(v.latency_p95_worst_ms > 0 ? num(v.latency_p95_worst_ms) : "n/a");
            h += td(pct(v.stutter_worst));
            h += td(std::to_string(v.dropped));
            h += td(v.failures ? "<b style=\"color:#c62828\">" + e(failures_text(v.failures_by_reason)) + "</b>" : "0");
            h += td(num(v.fairness, 3));
            std::string use = s.host_use.empty() ? opt_num(s.host_cpu_mean_pct, 0)
                                                 : "<a href=\"#host-use\">per host</a>";
            if (s.gpu_util_mean_pct >= 0) use += "<div class=\"muted\">GPU " + opt_num(s.gpu_util_mean_pct, 0) + " % (" + e(s.gpu_source) + ")</div>";
            if (s.gpu_share_mean_pct >= 0)
                use += "<div class=\"muted\">share/session " + opt_num(s.gpu_share_mean_pct, 1) + " % (" + e(s.gpu_share_source) + ")</div>";
            if (s.gpu_mem_peak_pct >= 0) use += "<div class=\"muted\">GPU mem " + opt_num(s.gpu_mem_peak_pct, 0) + " %</div>";
            h += td(use);
        }
        std::string pill = s.windows.empty() ? "<span class=\"pill none\">n/a</span>"
                                             : (v.pass ? "<span class=\"pill pass\">pass</span>" : "<span class=\"pill fail\">fail</span>");
        std::string reason;
        if (!v.pass && !v.reasons.empty()) {
            reason = e(v.reasons.front());
            if (v.reasons.size() > 1) reason += " <span class=\"muted\">(+" + std::to_string(v.reasons.size() - 1) + " more)</span>";
        }
        if (s.stored && !s.agrees) reason += "<div class=\"muted\">orchestrator recorded: " + e(*s.stored) + "</div>";
        h += "<td class=\"l\">" + pill + (is_max ? " <span class=\"muted\">max density</span>" : "") +
             (a.knee.step && *a.knee.step == k ? " <span class=\"muted\" style=\"color:#e65100\">knee</span>" : "") +
             (reason.empty() ? "" : "<div class=\"reason\">" + reason + "</div>") + "</td>";
        h += "</tr>\n";
    }
    return h;
}

std::string session_rows(const RunAnalysis& a) {
    std::string h;
    const bool hosts = a.sessions_on_several_hosts();
    for (const auto& s : a.sessions) {
        bool failed = store::is_failure(s.end_reason);
        h += std::string("<tr") + (failed ? " class=\"fail\"" : "") + ">";
        h += td(std::to_string(s.id), "l");
        if (hosts) h += td(e(a.host_label(s.host)), "l");
        h += td(e(s.profile), "l");
        h += td(e(s.device.device_name.empty() ? "?" : s.device.device_name) +
                    (s.device.software ? " <b style=\"color:#b36200\">(software)</b>" : ""),
                "l");
        h += td(num(a.seconds(s.started_ns), 1));
        h += td(s.ended_ns ? num(a.seconds(*s.ended_ns), 1) : "\u2014");
        h += td(failed ? "<b style=\"color:#c62828\">" + std::string(store::to_string(s.end_reason)) + "</b>"
                       : std::string(store::to_string(s.end_reason)),
                "l");
        h += td(std::to_string(s.frames_received));
        h += td(std::to_string(s.frames_lost));
        const auto lows = a.bye_lows.count(s.id) ? a.bye_lows.at(s.id) : RunAnalysis::SessionLows{};
        h += td(num(lows.low1_fps));      // n/a without a BYE
        h += td(num(lows.low1_min_fps));
        h += td("<span class=\"muted\">" + e(s.detail) + "</span>", "l");
        h += "</tr>\n";
    }
    return h;
}

}  // namespace

std::string utc_text(int64_t unix_ns) {
    time_t t = static_cast<time_t>(unix_ns / 1'000'000'000);
    tm g{};
    gmtime_r(&t, &g);
    char b[64];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", &g);
    return b;
}

std::string render_html(const RunAnalysis& a) {
    Headline hl = headline(a);
    std::string title = "seatmark report: " + (a.plan_name.empty() ? std::string("run") : a.plan_name) + " on " +
                        (a.run.host.empty() ? std::string("?") : a.run.host);
    std::string h;
    h.reserve(1 << 20);
    h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
         "<title>" + e(title) + "</title><style>" + css + "</style></head><body>\n";
    h += "<header><div class=\"in\"><h1>seatmark density report \u2014 " + e(a.plan_name.empty() ? "run" : a.plan_name) +
         "</h1><div class=\"meta\">host " + e(a.run.host) + " \u00b7 started " + e(utc_text(a.run.started_unix_ns)) +
         " \u00b7 " + e(a.run.tool_version) + "</div></div></header>\n<main>\n";

    // Warnings a reader must not miss.
    for (const auto& w : hl.warnings) {
        bool bad = w.starts_with("The run did not finish") || w.starts_with("No step");
        h += "<div class=\"banner " + std::string(bad ? "bad" : "warn") + "\">" + std::string(bad ? "\u2716 " : "\u26a0 ") +
             e(w) + "</div>\n";
    }

    // Headline cards.
    h += "<section class=\"cards\">";
    h += "<div class=\"card big " + std::string(a.max_density > 0 ? "good" : "bad") +
         "\"><div class=\"label\">Max density (" +
         (a.pool.is_pool() ? "sessions in the pool of " + std::to_string(a.pool.hosts.size()) + " hosts" : std::string("sessions per host")) +
         ")</div><div class=\"value\">" +
         (a.max_density > 0 ? std::to_string(a.max_density) : std::string("none")) + "</div><div class=\"sub\">" +
         (a.max_density > 0 ? "every step up to " + std::to_string(a.max_density) + (a.max_density == 1 ? " session" : " sessions") + " met the SLA"
                            : "no step met the SLA") +
         "</div></div>";
    std::string knee_value = !a.knee.has_baseline ? "n/a"
                             : a.knee.step       ? std::to_string(a.steps[*a.knee.step].target) + " sessions"
                                                 : "not reached";
    h += "<div class=\"card knee\"><div class=\"label\">Knee (VSImax-style)</div><div class=\"value" +
         std::string(a.knee.step ? "" : " small") + "\">" + e(knee_value) + "</div><div class=\"sub\">" + e(hl.knee) +
         "</div></div>";
    h += "<div class=\"card " + std::string(a.finished() ? "good" : "bad") +
         "\"><div class=\"label\">Run</div><div class=\"value small\">" + e(a.status_text) + "</div><div class=\"sub\">" +
         e(hl.measured) + "</div></div>";
    std::string dev = a.devices.empty() ? "none" : (a.devices.front().device_name.empty() ? "unknown" : a.devices.front().device_name);
    if (a.devices.size() > 1) dev += " + " + std::to_string(a.devices.size() - 1) + " more";
    h += "<div class=\"card " + std::string(a.any_software ? "warn" : "good") +
         "\"><div class=\"label\">Device the sessions used</div><div class=\"value small\">" + e(dev) +
         "</div><div class=\"sub\">" +
         (a.any_software ? "<b>SOFTWARE RENDERER</b>: frames drawn by the CPU, not a GPU" : "hardware renderer") +
         "</div></div>";
    h += "</section>\n";

    h += "<div class=\"facts\">";
    h += "<div><b>Max density</b> " + e(hl.density) + " \u2014 " + e(hl.density_rule) + ".</div>";
    h += "<div><b>Service level</b> " + e(hl.sla) + ".</div>";
    h += "<div><b>Host</b> " + e(hl.host) + "</div>";
    for (const auto& d : hl.devices) h += "<div><b>Device</b> " + e(d) + "</div>";
    h += "<div><b>Run</b> " + e(hl.status) + "; " + e(hl.measured) + "; database " + e(a.db_path) + "</div>";
    h += "</div>\n";

    h += "<h2>Experience as sessions are added</h2><div class=\"grid2\">";
    h += "<figure><h3>p95 frame interval vs sessions</h3>" + p95_chart(a) +
         "<figcaption>Nearest-rank p95 of frame interval per session; dots are the median over the step's sessions "
         "(green pass, red fail), the grey line its worst session. Red dashed: the SLA bound. Orange: the knee, where p95 "
         "leaves the first step's baseline by the plan's margin.</figcaption></figure>";
    h += "<figure><h3>FPS per session in each step</h3>" + fps_chart(a) +
         "<figcaption>FPS = frames / active time, one dot per session; boxes span the quartiles with the median line, "
         "whiskers min..max. Box colour is the step verdict; a tight box means a fair share (Jain's index in the "
         "table).</figcaption></figure>";
    h += "</div>\n";

    h += "<h2>Steps</h2><table><thead><tr><th class=\"l\">step</th><th>sessions</th><th>FPS median<div class=\"muted\">min\u2013max</div></th>"
         "<th>FPS 95 % CI</th><th>p50 / p95 / p99 ms<div class=\"muted\">median session</div></th><th>p95 ms<div class=\"muted\">worst</div></th>"
         "<th>1 % low FPS<div class=\"muted\">worst</div></th><th>latency p95 ms<div class=\"muted\">worst</div></th>"
         "<th>stutter<div class=\"muted\">worst</div></th><th>dropped</th><th>failures</th><th>fairness<div class=\"muted\">Jain</div></th>"
         "<th>CPU / GPU %<div class=\"muted\">host mean</div></th><th class=\"l\">verdict</th></tr></thead><tbody>\n";
    h += step_rows(a);
    h += "</tbody></table>\n";
    h += host_roster_html(a);
    h += host_use_html(a);
    h += pool_html(a);

    h += search_html(a);
    h += bottleneck_html(a);
    h += capacity_html(a, model_capacity(a));

    h += "<h2>Sessions over time</h2><figure><h3>p95 frame interval of every session, per time bin</h3>" + heatmap_chart(a) +
         "<figcaption>One row per session, one column per " + seconds_text(double(a.heat.bin_ns) * 1e-9) +
         " bin; colour = nearest-rank p95 of the frame intervals that began in the bin, against the SLA bound. Numbers on "
         "top are the step's session count (red: the step failed).</figcaption></figure>\n";

    h += "<h2>Host load</h2><figure><h3>Host CPU over time, steps as bands</h3>" + timeline_chart(a) +
         "<figcaption>Host-wide CPU use from /proc/stat (source 'proc'), sampled every 0.5 s; GPU utilisation where a GPU "
         "sampler recorded it. Shaded: each step's measurement windows, tinted by their verdict. Red lines: session failures "
         "and run-wide events.</figcaption></figure>\n";

    if (!a.marks.empty()) {
        h += "<h2>Failures and run events</h2><table><thead><tr><th>time</th><th class=\"l\">session</th><th class=\"l\">what</th>"
             "<th class=\"l\">detail</th></tr></thead><tbody>";
        for (const auto& m : a.marks)
            h += "<tr class=\"fail\">" + td(num(m.t_s, 1) + " s") +
                 td(m.session_id ? std::to_string(*m.session_id) : "run", "l") + td("<b>" + e(m.kind) + "</b>", "l") +
                 td(e(m.detail), "l") + "</tr>";
        h += "</tbody></table>\n";
    }

    h += std::string("<h2>Sessions</h2><table><thead><tr><th class=\"l\">id</th>") +
         (a.sessions_on_several_hosts() ? "<th class=\"l\">host</th>" : "") + "<th class=\"l\">profile</th><th class=\"l\">device</th>"
         "<th>started s</th><th>ended s</th><th class=\"l\">end</th><th>frames</th><th>lost</th>"
         "<th>1 % low FPS<div class=\"muted\">1000 / p99</div></th><th>1% Min FPS<div class=\"muted\">MangoHud</div></th>"
         "<th class=\"l\">detail</th>"
         "</tr></thead><tbody>\n" + session_rows(a) + "</tbody></table>\n";

    h += endpoint_html(a);

    h += "<h2>Definitions</h2><dl>";
    for (const auto& d : definitions()) h += "<dt>" + e(d.name) + "</dt><dd>" + e(d.text) + "</dd>";
    h += "</dl>\n";
    h += "<footer>Written by seatmark report from " + e(a.db_path) + " (" + std::to_string(a.frames) +
         " frames). Per-step and per-session figures: steps.csv, sessions.csv, report.json beside this file.</footer>\n";
    h += "</main></body></html>\n";
    return h;
}

}  // namespace seatmark::report
