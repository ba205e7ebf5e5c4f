#pragma once
// What a run database holds, as C++ values: the writer's inputs (*Info) and the
// reader's rows (*Row). docs/store.md and store/schema.cpp define every field;
// times follow the schema's rules (*_unix_ns wall clock, every other *_ns CLOCK_MONOTONIC).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seatmark::store {

// degraded: a pool run that lost a host (hosts.status 'lost'); the survivors' data is complete.
enum class RunStatus { running, finished, aborted, crashed, degraded };

// How a session ended. `running` until the orchestrator records its end.
enum class SessionEnd {
    running,
    ok,                 // ran its duration and said BYE
    crash,              // died by a signal or exited non-zero without a specific reason
    hang,               // stopped sending heartbeats and was killed
    device_lost,        // VK_ERROR_DEVICE_LOST
    software_fallback,  // got a software renderer when the plan forbids it
    killed,             // stopped by the orchestrator (run aborted or ended early)
    error,              // any other failure the session reported
    protocol,           // sent something the wire protocol does not allow
    disconnected,       // a joined session whose connection dropped without BYE (orchestrator/join_source.h)
};

// Text as stored ('running', 'device-lost', ...); parse_* throw std::invalid_argument on unknown text.
std::string_view to_string(RunStatus s);
std::string_view to_string(SessionEnd e);
RunStatus parse_run_status(std::string_view s);
SessionEnd parse_session_end(std::string_view s);

// Whether a session end reason is a failure of the session (not ok, killed or running): a
// failure counts against the step it happened in (core/step_rules.h).
bool is_failure(SessionEnd e);

// ---- writer inputs -------------------------------------------------------------------------

struct RunInfo {
    std::string plan_text;         // the run plan (TOML) as read
    std::string plan_path;         // where it was read from ("" if built in)
    std::string tool_version;      // seatmark version
    std::string host;              // hostname of the orchestrator writing the file
    int64_t started_unix_ns = 0;   // 0: the writer takes the wall clock now
    int64_t mono_origin_ns = 0;    // CLOCK_MONOTONIC at the same instant; 0: now_ns()
    std::string pool_id;           // a pool run's id (the same on every host); "" for a single host
};

// hosts.role: who the host is to the file that records it.
inline constexpr std::string_view role_orchestrator = "orchestrator";  // wrote the file (single host, MPI rank 0)
inline constexpr std::string_view role_rank = "rank";                  // another MPI rank's orchestrator
inline constexpr std::string_view role_joined = "joined";              // sessions joined over TCP from it

struct HostInfo {
    std::string hostname, cpu_model;
    int64_t cpu_count = 0, mem_total_bytes = 0;
    std::string os, kernel, gpu, driver, vulkan_device;
    std::optional<int> rank;                  // MPI rank; nullopt outside MPI
    std::string role{role_orchestrator};      // role_orchestrator, role_rank or role_joined
    int64_t clock_offset_ns = 0;              // added to its monotonic stamps -> this file's time base
    std::optional<int64_t> clock_uncertainty_ns;  // nullopt: the same clock
    bool lost = false;                        // hosts.status 'lost' (else 'ok')
    std::optional<int> lost_step;             // steps.idx it was lost in
    std::optional<std::string> lost_detail;   // how
    std::string agent = "local";              // 'local', 'agent' or 'none: <reason>'
    std::optional<double> cpu_capacity;       // CPUs really usable when fewer than cpu_count; nullopt: all
    std::string cpu_capacity_note;            // "1 CPU: cpuset 0 of 2 online"
};

struct StepInfo {
    int idx = 0;               // step number from 0 in ramp order
    int repeat = 0;            // measurement window repeat within the step, from 0
    int target_sessions = 0;   // sessions the step runs with
    int64_t started_ns = 0;
    std::string shortfall;     // why the step could not get its sessions (join mode); "" when it could
    std::optional<int> pool_hosts;  // a pool run: the hosts taking part (a scaling series' pool size)
};

struct StepEnd {  // end_step(): a measurement window closed and was judged; identifies it by (idx, repeat)
    int idx = 0, repeat = 0;
    int64_t window_start_ns = 0, window_end_ns = 0;  // measured window [start, end)
    int64_t ended_ns = 0;
    std::optional<std::string> verdict;  // "pass" / "fail"; nullopt when not judged
    std::string detail;                  // why, e.g. the first SLA clause that failed
};

// A verdict as the orchestrator judged it (core/step_rules.h): one measurement window
// (repeat >= 0) or the step pooled over all its windows (repeat == pooled_repeat).
inline constexpr int pooled_repeat = -1;
struct VerdictRow {
    std::string host;  // "": the pool (the whole run); a hostname: that host's own verdict
    int step_idx = 0;
    int repeat = pooled_repeat;
    int target_sessions = 0;
    int64_t t0_ns = 0, t1_ns = 0;  // frames that began in [t0, t1); membership decided at t1
    int64_t judged_ns = 0;         // when the orchestrator judged it
    bool pass = false;
    int64_t sessions = 0;          // sessions judged
    int64_t failures = 0;          // of them, failed
    int64_t frames = 0, dropped = 0;
    double fps_median = 0, fps_min = 0, fps_max = 0;   // over sessions' FPS
    double p95_median_ms = 0, p95_worst_ms = 0;        // NaN (NULL) when no session had an interval
    double low1_worst_fps = 0, latency_p95_worst_ms = 0, stutter_worst = 0;
    double fairness = 1;
    double gpu_mem_peak_pct = -1;  // -1: GPU memory bound not checked
    std::vector<std::string> reasons;  // why it failed, most telling first
};

struct SessionDevice {  // what the session reported it really got
    std::string device_name, device_type, driver_name, driver_info;
    bool software = false;
};

struct SessionInfo {
    int id = 0;              // session number within the run (unique over the pool)
    std::string profile;     // workload profile name
    int64_t pid = 0;
    SessionDevice device;    // may be filled later with set_session_device()
    int64_t started_ns = 0;
    std::string host;        // hostname it runs on; "": the writer's own host (RunInfo::host)
};

struct SessionResult {  // update_session_end()
    int id = 0;
    int64_t ended_ns = 0;
    SessionEnd reason = SessionEnd::ok;
    std::optional<int64_t> exit_code;    // exit status, when it exited
    std::optional<int64_t> signal;       // terminating signal, when killed by one
    std::optional<int64_t> frames_sent;  // from the session's BYE; nullopt without one
    int64_t frames_received = 0;         // frames the orchestrator received
    int64_t frames_lost = 0;             // gaps in the sequence
    std::optional<double> model_open_ms; // session start -> first frame showing its scene (BYE)
    std::string detail;
};

// ---- rows (reader output; SampleRow and EventRow are also writer inputs) --------------------

struct RunRow : RunInfo {
    int64_t id = 0;
    std::optional<int64_t> ended_unix_ns;  // nullopt until the run ended
    RunStatus status = RunStatus::running; // as stored; see StoreReader::effective_status()
    std::optional<int64_t> max_density;    // sessions, as the orchestrator found it; nullopt until the run ended
};

using HostRow = HostInfo;

// One pool size of a pool run's scaling (the `scaling` table, written by the merge).
struct ScalingRow {
    int hosts = 0;
    int first_step = 0, last_step = 0;  // steps.idx of its ramp
    int64_t max_sessions = 0;           // the pool's max passing sessions on it
    std::optional<double> efficiency;   // E(H); nullopt without a passing 1-host ramp
    bool complete = true;               // no host of it was lost during its steps
};

struct StepRow : StepInfo {
    std::optional<int64_t> window_start_ns, window_end_ns, ended_ns;  // nullopt until the step ended
    std::optional<std::string> verdict;
    std::string detail;
};

struct SessionRow : SessionInfo {
    std::optional<int64_t> ended_ns;
    SessionEnd end_reason = SessionEnd::running;
    std::optional<int64_t> exit_code, signal, frames_sent;
    int64_t frames_received = 0, frames_lost = 0;
    std::optional<double> model_open_ms;
    std::string detail;
};

struct SampleRow {
    int64_t t_ns = 0;
    std::optional<int> session_id;  // nullopt: host-wide
    std::string source;             // 'proc', 'nvml', 'drm', 'software', ...
    std::string metric;             // e.g. 'gpu_util', 'cpu_ns', 'mem_bytes'
    double value = 0;
    std::string host;               // "": the file writer's own host
};

struct EventRow {
    int64_t t_ns = 0;
    std::optional<int> session_id;  // nullopt: run-wide
    std::string kind;               // e.g. 'step-begin', 'session-crash', 'sampler-error'
    std::string detail;
    std::string host;               // "": the file writer's own host, or run-wide
};

// The detail of a 'step-verdict' event: "step N (T sessions): pass" or "...: fail: REASON". One
// rule for the writer and every reader that colours the event (the monitor), so a reader never
// guesses a verdict from a time stamp or from words elsewhere in the text.
std::string step_verdict_detail(uint32_t step_no, uint32_t sessions, bool pass, const std::string& reason);
// The verdict a step_verdict_detail() text states; nullopt for any other text.
std::optional<bool> step_verdict_passed(std::string_view detail);

}  // namespace seatmark::store
