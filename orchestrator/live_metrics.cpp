#include "orchestrator/live_metrics.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace seatmark::orchestrator {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Writer {
public:
    // Starts a metric family: # HELP and # TYPE once.
    void family(const char* name, const char* type, const char* help) {
        out_ += "# HELP ";
        out_ += name;
        out_ += ' ';
        out_ += help;
        out_ += "\n# TYPE ";
        out_ += name;
        out_ += ' ';
        out_ += type;
        out_ += '\n';
    }
    // One sample; NaN (not measured) is left out rather than exported as NaN.
    void sample(const char* name, double v, const Labels& labels = {}) {
        if (std::isnan(v)) return;
        out_ += name;
        if (!labels.empty()) {
            out_ += '{';
            for (size_t i = 0; i < labels.size(); ++i) {
                if (i) out_ += ',';
                out_ += labels[i].first + "=\"" + prometheus_escape(labels[i].second) + '"';
            }
            out_ += '}';
        }
        char buf[64];
        if (std::isinf(v))
            std::snprintf(buf, sizeof buf, " %s\n", v > 0 ? "+Inf" : "-Inf");
        else if (v == std::floor(v) && std::fabs(v) < 1e15)
            std::snprintf(buf, sizeof buf, " %.0f\n", v);
        else
            std::snprintf(buf, sizeof buf, " %.6g\n", v);
        out_ += buf;
    }
    void gauge(const char* name, const char* help, double v, const Labels& labels = {}) {
        family(name, "gauge", help);
        sample(name, v, labels);
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

}  // namespace

std::string prometheus_escape(const std::string& v) {
    std::string o;
    o.reserve(v.size());
    for (char c : v) {
        if (c == '\\')
            o += "\\\\";
        else if (c == '"')
            o += "\\\"";
        else if (c == '\n')
            o += "\\n";
        else
            o += c;
    }
    return o;
}

std::string prometheus_text(const core::LiveState& s, const ApiCounters& c) {
    Writer w;
    w.gauge("seatmark_run_info", "The run being measured (always 1; the labels carry the facts).", 1,
            {{"plan", s.plan}, {"host", s.host}, {"status", s.status}, {"db", s.db_path}});
    w.gauge("seatmark_run_elapsed_seconds", "Seconds since the run started.", s.elapsed_s);
    w.gauge("seatmark_run_running", "1 while sessions are being ramped and measured, 0 once stopping or ended.",
            s.status == "running" ? 1 : 0);
    w.gauge("seatmark_step", "Current step, 1-based (step k of seatmark_steps).", double(s.step));
    w.gauge("seatmark_steps", "Steps in the plan.", double(s.steps));
    w.family("seatmark_step_phase", "gauge", "1 for the phase the current step is in.");
    for (const char* p : {"starting", "settling", "measuring", "judging", "stopping", "done"})
        w.sample("seatmark_step_phase", s.phase == p ? 1 : 0, {{"phase", p}});
    w.gauge("seatmark_sessions_target", "Sessions the current step runs with.", s.target);
    w.gauge("seatmark_sessions_alive", "Session processes alive now.", s.alive);
    w.gauge("seatmark_max_density_sessions",
            "Max density so far: the last step such that it and every step below passed (sessions).",
            s.max_density_so_far);
    w.family("seatmark_step_pass", "gauge", "Verdict of each judged step: 1 pass, 0 fail.");
    for (const auto& st : s.finished_steps)
        w.sample("seatmark_step_pass", st.pass ? 1 : 0,
                 {{"step", std::to_string(st.index + 1)}, {"sessions", std::to_string(st.sessions)}});
    w.family("seatmark_step_fps_median", "gauge", "Median per-session FPS (frames / active time) of each judged step.");
    for (const auto& st : s.finished_steps)
        w.sample("seatmark_step_fps_median", st.fps_median,
                 {{"step", std::to_string(st.index + 1)}, {"sessions", std::to_string(st.sessions)}});
    w.family("seatmark_step_frame_interval_p95_worst_seconds", "gauge",
             "Worst per-session p95 frame interval (nearest rank) of each judged step.");
    for (const auto& st : s.finished_steps)
        w.sample("seatmark_step_frame_interval_p95_worst_seconds", st.p95_worst_ms * 1e-3,
                 {{"step", std::to_string(st.index + 1)}, {"sessions", std::to_string(st.sessions)}});

    w.gauge("seatmark_host_cpu_percent", "Host CPU use, % of all cores (/proc/stat).", s.host_cpu_pct);
    w.gauge("seatmark_host_memory_used_bytes", "Host memory in use (MemTotal - MemAvailable).", s.host_mem_used_bytes);
    w.gauge("seatmark_host_memory_total_bytes", "Host physical memory.", s.host_mem_total_bytes);
    w.gauge("seatmark_gpu_utilization_percent", "GPU utilisation, labelled by the sampler that measured it.",
            s.gpu_util_pct, {{"source", s.gpu_backend}});
    w.gauge("seatmark_gpu_memory_used_bytes", "GPU memory in use.", s.gpu_mem_used_bytes, {{"source", s.gpu_backend}});
    w.gauge("seatmark_gpu_memory_total_bytes", "GPU memory.", s.gpu_mem_total_bytes, {{"source", s.gpu_backend}});

    w.family("seatmark_frames_stored_total", "counter", "Frames written to the run database.");
    w.sample("seatmark_frames_stored_total", double(s.frames_stored));
    w.family("seatmark_frames_lost_total", "counter", "Frames sessions sent that never arrived (counted at session end).");
    w.sample("seatmark_frames_lost_total", double(s.frames_lost));

    // The host too: a pool's hosts each number their sessions from 0, and a joined session runs
    // on the host it joined from, not the controller's.
    auto session_labels = [&s](const core::LiveSession& x) {
        return Labels{{"session", std::to_string(x.id)}, {"host", x.host.empty() ? s.host : x.host}, {"profile", x.profile}};
    };
    w.family("seatmark_session_up", "gauge", "1 while the session process runs; the state label says how it is or ended.");
    for (const auto& x : s.sessions) {
        Labels l = session_labels(x);
        l.push_back({"state", x.state});
        bool up = x.state == "running" || x.state == "starting" || x.state == "stopping";
        w.sample("seatmark_session_up", up ? 1 : 0, l);
    }
    w.family("seatmark_session_frames_total", "counter", "Frames received from the session.");
    for (const auto& x : s.sessions) w.sample("seatmark_session_frames_total", double(x.frames), session_labels(x));
    w.family("seatmark_session_fps", "gauge", "Session FPS (frames / active time) over the last 3 s.");
    for (const auto& x : s.sessions) w.sample("seatmark_session_fps", x.fps, session_labels(x));
    w.family("seatmark_session_frame_interval_p95_seconds", "gauge",
             "Session p95 frame interval (nearest rank) over the last 3 s.");
    for (const auto& x : s.sessions)
        w.sample("seatmark_session_frame_interval_p95_seconds", x.p95_ms * 1e-3, session_labels(x));
    w.family("seatmark_session_sla_ok", "gauge", "1 when the session meets its SLA over the last 3 s.");
    for (const auto& x : s.sessions) w.sample("seatmark_session_sla_ok", x.sla_ok ? 1 : 0, session_labels(x));
    w.family("seatmark_session_cpu_percent", "gauge", "Session process CPU, % of one core.");
    for (const auto& x : s.sessions) w.sample("seatmark_session_cpu_percent", x.cpu_pct, session_labels(x));
    w.family("seatmark_session_resident_memory_bytes", "gauge", "Session process resident memory.");
    for (const auto& x : s.sessions)  // unknown (no agent on its host, no sample yet): no sample, not 0
        if (x.rss_bytes) w.sample("seatmark_session_resident_memory_bytes", double(*x.rss_bytes), session_labels(x));
    w.family("seatmark_session_figures_unavailable", "gauge",
             "1 for a session whose CPU and memory figures are unknown; the reason label says why.");
    for (const auto& x : s.sessions)
        if (!x.figures_unavailable.empty()) {
            Labels l = session_labels(x);
            l.push_back({"reason", x.figures_unavailable});
            w.sample("seatmark_session_figures_unavailable", 1, l);
        }
    w.family("seatmark_session_gpu_share_percent", "gauge", "Session share of GPU use, labelled by its source.");
    for (const auto& x : s.sessions) {
        Labels l = session_labels(x);
        l.push_back({"source", x.gpu_share_source});
        w.sample("seatmark_session_gpu_share_percent", x.gpu_share_pct, l);
    }

    w.family("seatmark_events_total", "counter", "Events the run reported, by kind.");
    for (const auto& [k, n] : c.events_by_kind) w.sample("seatmark_events_total", double(n), {{"kind", k}});
    w.family("seatmark_api_responses_total", "counter", "HTTP responses the live API sent, by status code.");
    for (const auto& [code, n] : c.requests_by_code)
        w.sample("seatmark_api_responses_total", double(n), {{"code", std::to_string(code)}});
    return w.take();
}

}  // namespace seatmark::orchestrator
