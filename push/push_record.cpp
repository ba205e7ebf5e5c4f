#include "push/push_record.h"

#include <cmath>
#include <ctime>

#include "store/store_reader.h"

namespace seatmark::push {

namespace {

// The file's monotonic stamps -> wall clock, through the run's (started_unix_ns, mono_origin_ns)
// pair. A file's values are not trusted: an overflow gives the run's start instead.
struct WallClock {
    int64_t unix0 = 0, mono0 = 0;
    int64_t at(int64_t mono) const {
        int64_t d = 0, out = 0;
        if (__builtin_sub_overflow(mono, mono0, &d) || __builtin_add_overflow(unix0, d, &out)) return unix0;
        return out;
    }
};

std::string utc_text(int64_t unix_ns) {
    const std::time_t t = static_cast<std::time_t>(unix_ns / 1000000000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

void figure(PushRecord& r, const char* name, double v, const char* unit) {
    if (std::isfinite(v)) r.fields.push_back({name, v, unit});
}
void count(PushRecord& r, const char* name, int64_t v, const char* unit) { r.fields.push_back({name, v, unit}); }

PushRecord verdict_record(const store::VerdictRow& v, const store::RunRow& run, const std::string& run_tag,
                          const WallClock& clock) {
    PushRecord r;
    const bool pooled = v.repeat == store::pooled_repeat;
    r.key = "verdict/" + v.host + "/" + std::to_string(v.step_idx) + "/" + std::to_string(v.repeat);
    r.measurement = pooled ? "seatmark_step" : "seatmark_window";
    r.time_unix_ns = clock.at(v.t1_ns);
    r.tags = {{"run", run_tag},
              {"host", v.host.empty() ? run.host : v.host},
              {"scope", v.host.empty() ? "run" : "host"},
              {"step", std::to_string(v.step_idx)}};
    if (!pooled) r.tags.emplace_back("repeat", std::to_string(v.repeat));
    r.result = v.pass ? "pass" : "fail";
    r.fields.push_back({"pass", v.pass, ""});
    count(r, "target_sessions", v.target_sessions, "sessions");
    count(r, "sessions", v.sessions, "sessions");
    count(r, "failures", v.failures, "sessions");
    count(r, "frames", v.frames, "frames");
    count(r, "dropped", v.dropped, "frames");
    figure(r, "span_s", (double(v.t1_ns) - double(v.t0_ns)) / 1e9, "s");
    figure(r, "fps_median", v.fps_median, "fps");
    figure(r, "fps_min", v.fps_min, "fps");
    figure(r, "fps_max", v.fps_max, "fps");
    figure(r, "p95_median_ms", v.p95_median_ms, "ms");
    figure(r, "p95_worst_ms", v.p95_worst_ms, "ms");
    figure(r, "low1_worst_fps", v.low1_worst_fps, "fps");
    figure(r, "latency_p95_worst_ms", v.latency_p95_worst_ms, "ms");
    figure(r, "stutter_worst", v.stutter_worst, "share");
    figure(r, "fairness", v.fairness, "jain");
    if (v.gpu_mem_peak_pct >= 0) figure(r, "gpu_mem_peak_pct", v.gpu_mem_peak_pct, "%");
    if (!v.reasons.empty()) {
        std::string all = v.reasons.front();
        for (size_t i = 1; i < v.reasons.size(); ++i) all += "; " + v.reasons[i];
        r.fields.push_back({"reasons", all, ""});
    }
    return r;
}

PushRecord session_record(const store::SessionRow& s, const store::RunRow& run, const std::string& run_tag,
                          const WallClock& clock) {
    PushRecord r;
    r.key = "session/" + std::to_string(s.id);
    r.measurement = "seatmark_session";
    r.time_unix_ns = clock.at(*s.ended_ns);
    r.tags = {{"run", run_tag},
              {"host", s.host.empty() ? run.host : s.host},
              {"session", std::to_string(s.id)},
              {"profile", s.profile}};
    r.result = std::string(store::to_string(s.end_reason));
    r.fields.push_back({"end", r.result, ""});
    r.fields.push_back({"failure", store::is_failure(s.end_reason), ""});
    figure(r, "duration_s", (double(*s.ended_ns) - double(s.started_ns)) / 1e9, "s");
    count(r, "frames_received", s.frames_received, "frames");
    count(r, "frames_lost", s.frames_lost, "frames");
    if (s.frames_sent) count(r, "frames_sent", *s.frames_sent, "frames");
    if (s.model_open_ms) figure(r, "model_open_ms", *s.model_open_ms, "ms");
    if (s.exit_code) count(r, "exit_code", *s.exit_code, "");
    if (s.signal) count(r, "signal", *s.signal, "");
    if (!s.device.device_name.empty()) r.fields.push_back({"device", s.device.device_name, ""});
    r.fields.push_back({"software", s.device.software, ""});
    if (!s.detail.empty()) r.fields.push_back({"detail", s.detail, ""});
    return r;
}

}  // namespace

std::vector<PushRecord> collect_records(const store::StoreReader& reader) {
    const store::RunRow run = reader.run();
    const WallClock clock{run.started_unix_ns, run.mono_origin_ns};
    // The run's name in every record: a pool's id, else the writing host and its start.
    const std::string run_tag = !run.pool_id.empty() ? run.pool_id : run.host + "@" + utc_text(run.started_unix_ns);
    std::vector<PushRecord> out;

    const store::RunStatus status = reader.effective_status();
    if (status != store::RunStatus::running) {
        PushRecord r;
        r.key = "run";
        r.measurement = "seatmark_run";
        r.time_unix_ns = run.ended_unix_ns.value_or(run.started_unix_ns);
        r.tags = {{"run", run_tag}, {"host", run.host}};
        r.result = std::string(store::to_string(status));
        r.fields.push_back({"status", r.result, ""});
        if (run.max_density) count(r, "max_density", *run.max_density, "sessions");
        if (run.ended_unix_ns) figure(r, "duration_s", (double(*run.ended_unix_ns) - double(run.started_unix_ns)) / 1e9, "s");
        r.fields.push_back({"tool_version", run.tool_version, ""});
        out.push_back(std::move(r));
    }
    for (const store::VerdictRow& v : reader.all_verdicts()) out.push_back(verdict_record(v, run, run_tag, clock));
    for (const store::SessionRow& s : reader.sessions())
        if (s.end_reason != store::SessionEnd::running && s.ended_ns) out.push_back(session_record(s, run, run_tag, clock));
    return out;
}

}  // namespace seatmark::push
