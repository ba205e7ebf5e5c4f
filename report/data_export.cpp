#include "report/endpoint_view.h"
#include "report/data_export.h"

#include <cmath>
#include <cstdio>

#include "report/capacity_json.h"
#include "report/pool_json.h"
#include "report/format.h"
#include "report/words.h"

namespace seatmark::report {

namespace {

using nlohmann::json;

json jnum(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json jopt(double v) { return v < 0 ? json(nullptr) : jnum(v); }  // -1: not sampled

json jci(const Interval& ci) {
    json j = {{"windows", ci.n}};
    if (ci.available()) {
        j["mean"] = jnum(ci.mean);
        j["lo"] = jnum(ci.lo);
        j["hi"] = jnum(ci.hi);
    } else {
        j["mean"] = j["lo"] = j["hi"] = nullptr;
    }
    return j;
}

json jsla(const Sla& s) {
    return {{"p95_interval_ms", s.p95_interval_ms}, {"low1_fps", s.low1_fps},     {"latency_p95_ms", s.latency_p95_ms},
            {"stutter_pct", s.stutter_pct},         {"failures", s.failures},     {"gpu_memory_pct", s.gpu_memory_pct},
            // Endpoint bounds (0: none), judged for sessions an RDP launcher watches.
            {"endpoint_fps", s.endpoint_fps},       {"endpoint_latency_p95_ms", s.endpoint_latency_p95_ms},
            {"delivered_ratio", s.delivered_ratio}, {"ssim", s.ssim}};
}

std::string c(double v, int digits = 3) { return std::isfinite(v) ? num(v, digits) : ""; }
std::string co(double v, int digits = 3) { return v < 0 ? "" : c(v, digits); }

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

}  // namespace

std::string steps_csv(const RunAnalysis& a) {
    std::string out =
        "step,sessions,judged_sessions,measured,windows,window_start_s,window_end_s,verdict,reason,stored_verdict,"
        "fps_median,fps_min,fps_max,fps_ci_lo,fps_ci_hi,p50_ms,p95_ms,p95_worst_ms,p95_ci_lo,p95_ci_hi,p99_ms,"
        "low1_fps_worst,latency_p95_ms_worst,stutter_pct_worst,frames,dropped,failures,failures_by_reason,fairness,"
        "host_cpu_mean_pct,host_cpu_max_pct,gpu_util_mean_pct,gpu_source,gpu_share_mean_pct,gpu_share_source,gpu_mem_peak_pct,"
        "session_cpu_mean_pct,host_mem_used_max_bytes\n";
    for (const auto& s : a.steps) {
        const auto& v = s.verdict;
        std::vector<std::string> f = {
            std::to_string(s.idx + 1),
            std::to_string(s.target),
            std::to_string(v.sessions.size()),
            s.measured ? "1" : "0",
            std::to_string(s.windows.size()),
            s.windows.empty() ? "" : c(a.seconds(s.measure_start_ns)),
            s.windows.empty() ? "" : c(a.seconds(s.measure_end_ns)),
            s.windows.empty() ? "not-measured" : (v.pass ? "pass" : "fail"),
            csv_field(v.reasons.empty() ? "" : v.reasons.front()),
            s.stored.value_or(""),
            c(v.fps_median), c(v.fps_min), c(v.fps_max),
            s.fps_ci.available() ? c(s.fps_ci.lo) : "", s.fps_ci.available() ? c(s.fps_ci.hi) : "",
            c(s.p50_median_ms), c(v.p95_median_ms), c(v.p95_worst_ms),
            s.p95_ci.available() ? c(s.p95_ci.lo) : "", s.p95_ci.available() ? c(s.p95_ci.hi) : "",
            c(s.p99_median_ms), c(v.low1_worst_fps), c(v.latency_p95_worst_ms), c(v.stutter_worst * 100),
            std::to_string(v.frames), std::to_string(v.dropped), std::to_string(v.failures),
            csv_field(v.failures ? failures_text(v.failures_by_reason) : ""),
            c(v.fairness, 4), co(s.host_cpu_mean_pct), co(s.host_cpu_max_pct), co(s.gpu_util_mean_pct),
            csv_field(s.gpu_source), co(s.gpu_share_mean_pct), csv_field(s.gpu_share_source), co(s.gpu_mem_peak_pct),
            co(s.session_cpu_mean_pct), co(s.mem_used_max_bytes, 0)};
        out += join(f, ",") + "\n";
    }
    return out;
}

std::string sessions_csv(const RunAnalysis& a) {
    std::string out =
        "step,step_sessions,session,profile,device,device_type,software,end_reason,failure,frames,active_s,fps,p50_ms,"
        "p95_ms,p99_ms,low1_fps,low1_min_fps_mangohud,low1_tw_fps,stutter_pct,latency_p95_ms,cpu_p50_ms,gpu_p50_ms,dropped,"
        "cpu_pct,rss_max_bytes,"
        "gpu_share_pct,gpu_share_source,"
        "violations\n";
    std::map<uint32_t, const store::SessionRow*> by_id;
    for (const auto& s : a.sessions) by_id[static_cast<uint32_t>(s.id)] = &s;
    for (const auto& s : a.steps) {
        for (const auto& f : s.verdict.sessions) {
            const store::SessionRow* row = by_id.count(f.id) ? by_id[f.id] : nullptr;
            const auto& m = f.summary;
            auto use = s.use.count(f.id) ? s.use.at(f.id) : SessionUse{};
            std::vector<std::string> v = {
                std::to_string(s.idx + 1), std::to_string(s.target), std::to_string(f.id), csv_field(f.profile),
                csv_field(row ? row->device.device_name : ""), csv_field(row ? row->device.device_type : ""),
                row && row->device.software ? "1" : "0",
                row ? std::string(store::to_string(row->end_reason)) : "", f.failure, std::to_string(m.frames),
                c(m.active_s), c(m.fps), c(m.p50_ms), c(m.p95_ms), c(m.p99_ms), c(m.low1_fps), c(m.low1_min_fps), c(m.low1_tw_fps),
                c(m.stutter * 100), c(m.latency_p95_ms), c(m.cpu_p50_ms), c(m.gpu_p50_ms), std::to_string(m.dropped),
                co(use.cpu_pct), co(use.rss_max_bytes, 0), co(use.gpu_share_pct), csv_field(use.gpu_share_source),
                csv_field(join(f.violations, "; "))};
            out += join(v, ",") + "\n";
        }
    }
    return out;
}

json report_json(const RunAnalysis& a) {
    Headline hl = headline(a);
    json j;
    j["format"] = "seatmark-report/1";
    j["db"] = a.db_path;
    j["plan"] = a.plan_name;
    j["host"] = a.run.host;
    j["tool_version"] = a.run.tool_version;
    j["started_unix_ns"] = a.run.started_unix_ns;
    j["status"] = std::string(store::to_string(a.status));
    j["status_text"] = a.status_text;
    j["finished"] = a.finished();
    j["frames"] = a.frames;
    j["duration_s"] = a.seconds(a.t1_ns);
    json sla = {{"default", jsla(a.default_sla)}, {"profiles", json::object()}};
    for (const auto& [p, s] : a.sla) sla["profiles"][p] = jsla(s);
    j["sla"] = sla;
    j["max_density"] = a.max_density;
    j["max_density_step"] = a.max_density_step ? json(*a.max_density_step + 1) : json(nullptr);
    j["max_density_definition"] = hl.density_rule;
    json knee = {{"margin_pct", a.knee.margin_pct}};
    knee["baseline_ms"] = a.knee.has_baseline ? jnum(a.knee.baseline_ms) : json(nullptr);
    knee["threshold_ms"] = a.knee.has_baseline ? jnum(a.knee.threshold_ms) : json(nullptr);
    knee["step"] = a.knee.step ? json(a.steps[*a.knee.step].idx + 1) : json(nullptr);
    knee["sessions"] = a.knee.step ? json(a.steps[*a.knee.step].target) : json(nullptr);
    knee["text"] = hl.knee;
    j["knee"] = knee;
    j["software_renderer"] = a.any_software;
    j["devices"] = json::array();
    for (const auto& d : a.devices)
        j["devices"].push_back({{"device_name", d.device_name}, {"device_type", d.device_type},
                                {"driver_name", d.driver_name}, {"driver_info", d.driver_info},
                                {"software", d.software}, {"sessions", d.sessions}});
    j["hosts"] = json::array();
    for (const auto& h : a.hosts)
        j["hosts"].push_back({{"hostname", h.hostname}, {"cpu_model", h.cpu_model}, {"cpu_count", h.cpu_count},
                              {"mem_total_bytes", h.mem_total_bytes}, {"os", h.os}, {"kernel", h.kernel},
                              {"gpu", h.gpu}, {"driver", h.driver}, {"vulkan_device", h.vulkan_device},
                              {"role", h.role}, {"agent", h.agent},
                              {"cpu_capacity", h.cpu_capacity ? json(*h.cpu_capacity) : json(nullptr)},
                              {"cpu_capacity_note", h.cpu_capacity_note}});
    // A joined run's hosts: sessions on each and whose samples its figures are (report/host_roster.h).
    if (!a.roster.empty()) {
        j["hosts_taking_part"] = json::array();
        for (const auto& p : a.roster)
            j["hosts_taking_part"].push_back({{"host", p.host}, {"role", p.role}, {"sessions", p.sessions},
                                              {"agent", p.agent}, {"sampled", p.sampled}, {"figures", p.figures}});
    }
    j["warnings"] = hl.warnings;
    j["capacity"] = capacity_json(a, model_capacity(a));
    j["pool"] = pool_json(a);

    j["steps"] = json::array();
    for (const auto& s : a.steps) {
        const auto& v = s.verdict;
        json st = {{"step", s.idx + 1},
                   {"sessions", s.target},
                   {"pool_hosts", s.pool_hosts ? json(s.pool_hosts) : json(nullptr)},
                   {"judged_sessions", v.sessions.size()},
                   {"measured", s.measured},
                   {"verdict", s.windows.empty() ? "not-measured" : (v.pass ? "pass" : "fail")},
                   {"pass", v.pass && !s.windows.empty()},
                   {"reasons", v.reasons},
                   {"stored_verdict", s.stored ? json(*s.stored) : json(nullptr)},
                   {"agrees_with_stored", s.agrees},
                   {"started_s", a.seconds(s.started_ns)},
                   {"window_start_s", s.windows.empty() ? json(nullptr) : json(a.seconds(s.measure_start_ns))},
                   {"window_end_s", s.windows.empty() ? json(nullptr) : json(a.seconds(s.measure_end_ns))},
                   {"fps_median", jnum(v.fps_median)},
                   {"fps_min", jnum(v.fps_min)},
                   {"fps_max", jnum(v.fps_max)},
                   {"fps_ci", jci(s.fps_ci)},
                   {"p50_ms", jnum(s.p50_median_ms)},
                   {"p95_ms", jnum(v.p95_median_ms)},
                   {"p95_worst_ms", jnum(v.p95_worst_ms)},
                   {"p95_ci", jci(s.p95_ci)},
                   {"p99_ms", jnum(s.p99_median_ms)},
                   {"low1_fps", jnum(v.low1_worst_fps)},
                   {"latency_p95_ms", jnum(v.latency_p95_worst_ms)},
                   {"stutter_pct", jnum(v.stutter_worst * 100)},
                   {"frames", v.frames},
                   {"dropped", v.dropped},
                   {"failures", v.failures},
                   {"failures_by_reason", v.failures_by_reason},
                   {"fairness", jnum(v.fairness)},
                   {"host_cpu_mean_pct", jopt(s.host_cpu_mean_pct)},
                   {"host_cpu_max_pct", jopt(s.host_cpu_max_pct)},
                   {"gpu_util_mean_pct", jopt(s.gpu_util_mean_pct)},
                   {"gpu_source", s.gpu_source},
                   {"gpu_share_mean_pct", jopt(s.gpu_share_mean_pct)},
                   {"gpu_share_source", s.gpu_share_source},
                   {"gpu_mem_peak_pct", jopt(s.gpu_mem_peak_pct)},
                   {"session_cpu_mean_pct", jopt(s.session_cpu_mean_pct)}};
        if (!s.windows.empty()) st["attribution"] = attribution_json(s.attribution);
        // Several hosts' host-wide figures, each its own (the host_* fields above are then null).
        if (!s.host_use.empty()) {
            st["hosts"] = json::array();
            for (const auto& u : s.host_use)
                st["hosts"].push_back({{"host", a.host_label(u.host)},
                                       {"host_cpu_mean_pct", jopt(u.cpu_mean_pct)},
                                       {"host_cpu_max_pct", jopt(u.cpu_max_pct)},
                                       {"gpu_util_mean_pct", jopt(u.gpu_util_mean_pct)},
                                       {"gpu_source", u.gpu_source},
                                       {"mem_used_max_bytes", jopt(u.mem_used_max_bytes)},
                                       {"sessions", u.sessions ? json(*u.sessions) : json(nullptr)},
                                       {"figures", u.note.empty() ? "its own samples" : u.note}});
        }
        st["windows"] = json::array();
        for (const auto& w : s.windows)
            st["windows"].push_back({{"repeat", w.repeat},
                                     {"start_s", a.seconds(w.start_ns)},
                                     {"end_s", a.seconds(w.end_ns)},
                                     {"pass", w.verdict.pass},
                                     {"reasons", w.verdict.reasons},
                                     {"fps_median", jnum(w.verdict.fps_median)},
                                     {"p95_ms", jnum(w.verdict.p95_median_ms)},
                                     {"stored_verdict", w.stored ? json(*w.stored) : json(nullptr)}});
        j["steps"].push_back(std::move(st));
    }

    j["sessions"] = json::array();
    for (const auto& s : a.sessions) {
        json se = {{"id", s.id},
                   {"profile", s.profile},
                   {"device_name", s.device.device_name},
                   {"device_type", s.device.device_type},
                   {"driver_name", s.device.driver_name},
                   {"driver_info", s.device.driver_info},
                   {"software", s.device.software},
                   {"started_s", a.seconds(s.started_ns)},
                   {"ended_s", s.ended_ns ? json(a.seconds(*s.ended_ns)) : json(nullptr)},
                   {"end_reason", std::string(store::to_string(s.end_reason))},
                   {"failed", store::is_failure(s.end_reason)},
                   {"exit_code", s.exit_code ? json(*s.exit_code) : json(nullptr)},
                   {"signal", s.signal ? json(*s.signal) : json(nullptr)},
                   {"frames_received", s.frames_received},
                   {"frames_lost", s.frames_lost},
                   // The whole session's 1 % lows (its BYE): 1000 / p99 and MangoHud's; null without one.
                   {"low1_fps", a.bye_lows.count(s.id) ? jnum(a.bye_lows.at(s.id).low1_fps) : json(nullptr)},
                   {"low1_min_fps_mangohud",
                    a.bye_lows.count(s.id) ? jnum(a.bye_lows.at(s.id).low1_min_fps) : json(nullptr)},
                   {"detail", s.detail}};
        se["steps"] = json::array();
        for (const auto& st : a.steps)
            for (const auto& f : st.verdict.sessions)
                if (f.id == static_cast<uint32_t>(s.id)) {
                    const auto& m = f.summary;
                    se["steps"].push_back({{"step", st.idx + 1},
                                           {"sessions", st.target},
                                           {"failure", f.failure},
                                           {"frames", m.frames},
                                           {"fps", jnum(m.fps)},
                                           {"p50_ms", jnum(m.p50_ms)},
                                           {"p95_ms", jnum(m.p95_ms)},
                                           {"p99_ms", jnum(m.p99_ms)},
                                           {"low1_fps", jnum(m.low1_fps)},
                                           {"low1_min_fps_mangohud", jnum(m.low1_min_fps)},
                                           {"low1_tw_fps", jnum(m.low1_tw_fps)},
                                           {"stutter_pct", jnum(m.stutter * 100)},
                                           {"latency_p95_ms", jnum(m.latency_p95_ms)},
                                           {"dropped", m.dropped},
                                           {"violations", f.violations}});
                }
        j["sessions"].push_back(std::move(se));
    }
    if (!a.endpoint_logons.empty()) j["endpoint"] = endpoint_json(a);
    json defs = json::object();
    for (const auto& d : definitions()) defs[d.name] = d.text;
    j["definitions"] = defs;
    return j;
}

}  // namespace seatmark::report
