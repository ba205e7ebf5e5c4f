#pragma once
// What a running orchestrator knows right now, for the live API (GET
// /api/v1/state, /metrics, the monitor). The run controller fills it on its
// event loop once per tick; the API renders it; the monitor reads it back. Plain
// data, no behaviour (core/: the monitor must not link the orchestrator).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace seatmark::core {

// Where the live API listens unless told otherwise (the monitor looks here first).
constexpr uint16_t default_live_port = 7878;

// What an RDP launcher sees of a session (`seatmark launch --join`): the logon, and the endpoint
// figures (core/endpoint.h) over the same recent span as the session's own FPS.
struct LiveEndpoint {
    std::string user, launcher, codec = "none";
    std::string fault = "none";  // the logon's fault class once it ended with one
    double logon_ms = NAN;       // connect -> the session's HELLO
    double fps = NAN, delivered_ratio = NAN, latency_p95_ms = NAN, ssim_mean = NAN, bytes_per_s = NAN;
    uint64_t arrivals = 0;       // frames seen at the client so far
};

struct LiveSession {
    uint32_t id = 0;            // unique on its host (a pool's hosts each number from 0)
    std::string host;           // the host it runs on ("" : the run's host)
    std::string profile;
    int64_t pid = 0;
    std::string state;          // "starting", "running", "stopping", or the end reason: "ok", "crash", "hang", ...
    std::string device;         // the Vulkan device it really got ("" before its HELLO)
    bool software = false;
    uint64_t frames = 0;        // frames received so far
    double fps = 0;             // frames / active time over the last few seconds (NaN when none)
    double p95_ms = 0;          // p95 frame interval over the same span (NaN when none)
    bool sla_ok = true;         // meets its SLA over that span
    // The session process's figures, from the host it runs on (this one's sampler, or a joined
    // host's agent). Unknown is NaN / empty with the reason in figures_unavailable, never 0: a
    // live process always has memory, so a 0 would be a claim, not a gap.
    double cpu_pct = 0;         // process CPU, % of one core (NaN before the first sample)
    std::optional<uint64_t> rss_bytes;  // resident memory (the working set on Windows)
    std::string figures_unavailable;    // why cpu_pct / rss_bytes are unknown ("" when known)
    double gpu_share_pct = 0;   // NaN when no GPU sample attributes work to it
    std::string gpu_share_source;  // "nvml", "drm", "software" (process CPU time), "" when none
    std::optional<LiveEndpoint> endpoint;  // only for sessions an RDP launcher carries
};

struct LiveStep {
    uint32_t index = 0;         // from 0
    uint32_t sessions = 0;      // target
    bool pass = false;
    double fps_median = 0, p95_worst_ms = 0;
    std::string reason;         // first reason it failed, "" when it passed
};

// One host of a pool run, as rank 0 sees it (a single-host run lists none).
struct LiveHost {
    std::string name;
    int rank = 0;
    std::string status = "ok";          // "ok", "lost", "idle" (a scaling series runs on fewer hosts)
    int64_t clock_offset_ns = 0;        // its monotonic clock + this = rank 0's
    int64_t clock_uncertainty_ns = 0;   // +- of that offset (0: rank 0 itself)
    uint32_t sessions_running = 0;      // as of its last summary
    double summary_age_s = 0;           // since that summary reached rank 0 (NaN: none yet)
};

struct LiveState {
    std::string plan, db_path, host;
    std::string status = "running";    // running, stopping, finished, aborted
    int64_t started_unix_ns = 0;
    double elapsed_s = 0;
    size_t step = 0, steps = 0;        // current step (1-based) of steps
    uint32_t target = 0, alive = 0;
    std::string phase;                 // starting, settling, measuring, stopping, done
    double phase_left_s = 0;
    uint32_t max_density_so_far = 0;   // last step such that it and every step below passed
    double host_cpu_pct = 0, host_mem_used_bytes = 0, host_mem_total_bytes = 0;
    double gpu_util_pct = 0, gpu_mem_used_bytes = 0, gpu_mem_total_bytes = 0;  // NaN without GPU samples
    std::string gpu_backend;           // "nvml", "drm", "software", "none"
    std::vector<LiveSession> sessions;  // a pool run: every host's (rank 0 serves the pool)
    std::vector<LiveHost> hosts;        // a pool run: by rank; empty for a single host
    std::vector<LiveStep> finished_steps;
    uint64_t frames_stored = 0, frames_lost = 0;
};

// One recent frame of a session, for GET /api/v1/frames.
struct LiveFrame {
    uint64_t seq = 0;
    int64_t t_begin_ns = 0;
    double interval_ms = 0;  // NaN for a stretch's first frame
};

// What the run reports as it happens (docs/live-api.md, GET /api/v1/events).
// Typed from the run controller to the API's JSON edge and back in the monitor.
struct StepBeginEvent {
    uint32_t step = 0;      // 1-based
    uint32_t steps = 0;     // in the plan
    uint32_t sessions = 0;  // the step's target
};

struct StepVerdictEvent {
    uint32_t step = 0;  // 1-based
    uint32_t sessions = 0;
    bool pass = false;
    double fps_median = 0, p95_worst_ms = 0;  // NaN when not measured
    std::string reason;                       // the first reason it failed, "" when it passed
};

struct SessionEndEvent {
    uint32_t session = 0;
    std::string reason;    // as LiveSession::state: ok, crash, hang, ...
    bool failure = false;  // it failed its step
    std::string detail;
};

struct RunEndEvent {
    std::string status;  // finished, aborted
    std::string db;
};

using RunEvent = std::variant<StepBeginEvent, StepVerdictEvent, SessionEndEvent, RunEndEvent>;

// The event's name on the wire: step-begin, step-verdict, session-end, run-end.
const char* event_kind(const RunEvent& e);

}  // namespace seatmark::core
