#include "report/endpoint_view.h"

#include "report/format.h"

namespace seatmark::report {

using nlohmann::json;

namespace {

json jn(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
std::string td(const std::string& s, const char* cls = nullptr) {
    return std::string("<td") + (cls ? std::string(" class=\"") + cls + "\"" : "") + ">" + s + "</td>";
}
std::string e(const std::string& s) { return html_escape(s); }
std::string ratio(double r) { return std::isfinite(r) ? pct(r) : "n/a"; }

}  // namespace

EndpointBeside endpoint_beside(const RunAnalysis& a, const store::EndpointLogonRow& l) {
    EndpointBeside b;
    if (!l.session_id) return b;
    for (const auto& s : a.steps)
        for (const auto& f : s.verdict.sessions)
            if (f.id == uint32_t(*l.session_id) && f.endpoint) {
                b.host_fps = f.summary.fps;
                b.endpoint_fps = f.endpoint->fps;
                b.step = s.idx + 1;
            }
    return b;
}

std::string endpoint_html(const RunAnalysis& a) {
    if (a.endpoint_logons.empty()) return {};
    std::string h = "<h2>What the remote user saw (RDP endpoint)</h2>"
                    "<p class=\"muted\">One row per RDP logon a launcher opened. Rendered and endpoint FPS are over the same "
                    "span (the last step the session was judged in); the rest is over the session's whole life. Latency: "
                    "the session's present to the frame's arrival at the client.</p>"
                    "<table><thead><tr><th>logon</th><th class=\"l\">user</th><th class=\"l\">launcher</th><th>session</th>"
                    "<th>logon ms</th><th class=\"l\">codec</th><th>KB/s</th><th>rendered FPS</th><th>endpoint FPS</th>"
                    "<th>delivered</th><th>arrival p95 ms</th><th>latency p50 / p95 ms</th><th>SSIM mean / min</th>"
                    "<th class=\"l\">fault</th></tr></thead><tbody>\n";
    for (const auto& l : a.endpoint_logons) {
        const auto b = endpoint_beside(a, l);
        const auto& f = l.figures;
        const bool bad = l.fault != "none";
        h += std::string("<tr") + (bad ? " class=\"fail\"" : "") + ">" + td(std::to_string(l.id)) + td(e(l.user), "l") +
             td(e(l.launcher), "l") + td(l.session_id ? std::to_string(*l.session_id) : "\u2014") +
             td(l.logon_ms ? num(*l.logon_ms, 0) : "n/a") + td(e(l.codec), "l") + td(num(l.bytes_per_s / 1024, 0)) +
             td(num(b.host_fps)) + td(num(b.endpoint_fps)) + td(ratio(f.delivered_ratio)) + td(num(f.interval_p95_ms)) +
             td(num(f.latency_p50_ms) + " / " + num(f.latency_p95_ms)) +
             td(f.ssim_samples ? num(f.ssim_mean, 3) + " / " + num(f.ssim_min, 3) : "n/a") +
             td(bad ? "<b style=\"color:#c62828\">" + e(l.fault) + "</b> <span class=\"muted\">" + e(l.fault_detail) + "</span>"
                    : "<span class=\"muted\">" + e(l.fault_detail) + "</span>",
                "l") +
             "</tr>\n";
    }
    h += "</tbody></table>\n";
    h += "<table><thead><tr><th class=\"l\">step</th><th>sessions</th><th>launched</th><th>FPS median (host)</th>"
         "<th>endpoint FPS worst</th><th>delivered worst</th><th>endpoint latency p95 worst ms</th><th>SSIM worst</th>"
         "</tr></thead><tbody>\n";
    for (const auto& s : a.steps) {
        if (s.windows.empty() || !s.verdict.launched) continue;
        const auto& v = s.verdict;
        h += "<tr>" + td(std::to_string(s.idx + 1), "l") + td(std::to_string(s.target)) + td(std::to_string(v.launched)) +
             td(num(v.fps_median)) + td(num(v.endpoint_fps_worst)) + td(ratio(v.delivered_ratio_worst)) +
             td(num(v.endpoint_latency_p95_worst_ms)) + td(num(v.ssim_worst, 3)) + "</tr>\n";
    }
    h += "</tbody></table>\n";
    return h;
}

std::string endpoint_markdown(const RunAnalysis& a) {
    if (a.endpoint_logons.empty()) return {};
    std::string m = "\n## What the remote user saw (RDP endpoint)\n\n"
                    "| logon | user | launcher | session | logon ms | codec | KB/s | rendered FPS | endpoint FPS | delivered | "
                    "latency p50 / p95 ms | SSIM mean | fault |\n|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n";
    for (const auto& l : a.endpoint_logons) {
        const auto b = endpoint_beside(a, l);
        const auto& f = l.figures;
        std::string fault = l.fault == "none" ? "none" : l.fault + ": " + l.fault_detail;
        for (auto& c : fault)
            if (c == '|' || c == '\n') c = ' ';
        m += "| " + std::to_string(l.id) + " | " + l.user + " | " + l.launcher + " | " +
             (l.session_id ? std::to_string(*l.session_id) : "-") + " | " + (l.logon_ms ? num(*l.logon_ms, 0) : "n/a") +
             " | " + l.codec + " | " + num(l.bytes_per_s / 1024, 0) + " | " + num(b.host_fps) + " | " + num(b.endpoint_fps) +
             " | " + ratio(f.delivered_ratio) + " | " + num(f.latency_p50_ms) + " / " + num(f.latency_p95_ms) + " | " +
             (f.ssim_samples ? num(f.ssim_mean, 3) : "n/a") + " | " + fault + " |\n";
    }
    return m;
}

json endpoint_json(const RunAnalysis& a) {
    json j = {{"logons", json::array()}, {"steps", json::array()}};
    for (const auto& l : a.endpoint_logons) {
        const auto b = endpoint_beside(a, l);
        const auto& f = l.figures;
        j["logons"].push_back({{"id", l.id},
                               {"launcher", l.launcher},
                               {"rdp_host", l.rdp_host},
                               {"host", l.host},
                               {"user", l.user},
                               {"session", l.session_id ? json(*l.session_id) : json(nullptr)},
                               {"connect_s", a.seconds(l.connect_ns)},
                               {"logon_ms", l.logon_ms ? json(*l.logon_ms) : json(nullptr)},
                               {"ended_s", l.ended_ns ? json(a.seconds(*l.ended_ns)) : json(nullptr)},
                               {"fault", l.fault},
                               {"fault_detail", l.fault_detail},
                               {"codec", l.codec},
                               {"payload_bytes", l.payload_bytes},
                               {"bytes_per_s", jn(l.bytes_per_s)},
                               {"rendered", f.rendered},
                               {"arrivals", f.arrivals},
                               {"fps", jn(f.fps)},
                               {"delivered_ratio", jn(f.delivered_ratio)},
                               {"interval_p50_ms", jn(f.interval_p50_ms)},
                               {"interval_p95_ms", jn(f.interval_p95_ms)},
                               {"interval_p99_ms", jn(f.interval_p99_ms)},
                               {"latency_p50_ms", jn(f.latency_p50_ms)},
                               {"latency_p95_ms", jn(f.latency_p95_ms)},
                               {"ssim_samples", f.ssim_samples},
                               {"ssim_mean", jn(f.ssim_mean)},
                               {"ssim_min", jn(f.ssim_min)},
                               {"beside", {{"step", b.step}, {"host_fps", jn(b.host_fps)}, {"endpoint_fps", jn(b.endpoint_fps)}}}});
    }
    for (const auto& s : a.steps) {
        if (s.windows.empty() || !s.verdict.launched) continue;
        const auto& v = s.verdict;
        json st = {{"step", s.idx + 1},
                   {"sessions", s.target},
                   {"launched", v.launched},
                   {"endpoint_fps_worst", jn(v.endpoint_fps_worst)},
                   {"delivered_ratio_worst", jn(v.delivered_ratio_worst)},
                   {"endpoint_latency_p95_worst_ms", jn(v.endpoint_latency_p95_worst_ms)},
                   {"ssim_worst", jn(v.ssim_worst)},
                   {"sessions_figures", json::array()}};
        for (const auto& f : v.sessions)
            if (f.endpoint)
                st["sessions_figures"].push_back({{"session", f.id},
                                                  {"host_fps", jn(f.summary.fps)},
                                                  {"endpoint_fps", jn(f.endpoint->fps)},
                                                  {"rendered", f.endpoint->rendered},
                                                  {"arrivals", f.endpoint->arrivals},
                                                  {"delivered_ratio", jn(f.endpoint->delivered_ratio)},
                                                  {"latency_p50_ms", jn(f.endpoint->latency_p50_ms)},
                                                  {"latency_p95_ms", jn(f.endpoint->latency_p95_ms)},
                                                  {"interval_p95_ms", jn(f.endpoint->interval_p95_ms)},
                                                  {"ssim_mean", jn(f.endpoint->ssim_mean)}});
        j["steps"].push_back(std::move(st));
    }
    return j;
}

std::string endpoint_csv(const RunAnalysis& a) {
    std::string out =
        "logon,launcher,rdp_host,host,user,session,logon_ms,fault,fault_detail,codec,bytes_per_s,rendered,arrivals,fps,"
        "delivered_ratio,interval_p50_ms,interval_p95_ms,interval_p99_ms,latency_p50_ms,latency_p95_ms,ssim_samples,"
        "ssim_mean,ssim_min,step,host_fps_step,endpoint_fps_step\n";
    auto c = [](double v) { return std::isfinite(v) ? num(v, 3) : std::string(); };
    for (const auto& l : a.endpoint_logons) {
        const auto b = endpoint_beside(a, l);
        const auto& f = l.figures;
        out += std::to_string(l.id) + "," + csv_field(l.launcher) + "," + csv_field(l.rdp_host) + "," + csv_field(l.host) + "," +
               csv_field(l.user) + "," + (l.session_id ? std::to_string(*l.session_id) : "") + "," +
               (l.logon_ms ? c(*l.logon_ms) : "") + "," + csv_field(l.fault) + "," + csv_field(l.fault_detail) + "," +
               csv_field(l.codec) + "," + c(l.bytes_per_s) + "," + std::to_string(f.rendered) + "," +
               std::to_string(f.arrivals) + "," + c(f.fps) + "," + c(f.delivered_ratio) + "," + c(f.interval_p50_ms) + "," +
               c(f.interval_p95_ms) + "," + c(f.interval_p99_ms) + "," + c(f.latency_p50_ms) + "," + c(f.latency_p95_ms) +
               "," + std::to_string(f.ssim_samples) + "," + c(f.ssim_mean) + "," + c(f.ssim_min) + "," +
               (b.step ? std::to_string(b.step) : "") + "," + c(b.host_fps) + "," + c(b.endpoint_fps) + "\n";
    }
    return out;
}

}  // namespace seatmark::report
