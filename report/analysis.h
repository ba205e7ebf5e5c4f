#pragma once
// The density analysis of one run database: every step re-judged from its frames with core's
// rules (core/step_rules.h), the ones the orchestrator judged with live, and compared with the
// verdicts it stored (store: verdicts, verdict_reasons); max density, the VSImax-style knee,
// repeat-window confidence intervals, and the time lines the charts draw. Renderers
// (html.h, markdown.h, data_export.h), check.h and compare.h read only this.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attribution.h"
#include "core/density_search.h"
#include "core/pool_shares.h"
#include "core/sla.h"
#include "store/endpoint_rows.h"
#include "store/records.h"
#include "core/step_rules.h"
#include "core/verdict.h"
#include "report/pool_analysis.h"

namespace seatmark::report {

// A 95 % Student-t interval of a mean over n repeat windows (n >= 2); n < 2: not available.
struct Interval {
    int n = 0;
    double mean = 0, lo = 0, hi = 0;
    bool available() const { return n >= 2; }
};

struct WindowAnalysis {
    int repeat = 0;
    int64_t start_ns = 0, end_ns = 0;
    core::StepVerdict verdict;     // recomputed from this window's frames
    std::optional<std::string> stored;     // the verdict the orchestrator stored ("pass"/"fail")
    std::string stored_detail;
    std::optional<store::VerdictRow> stored_verdict;  // its verdict row, when it stored one
};

// Figures of one session in one step that come from the samplers, not the frames.
struct SessionUse {
    double cpu_pct = -1;        // mean process CPU % in the step's windows ('proc' cpu_pct); -1 none
    double rss_max_bytes = -1;
    double gpu_share_pct = -1;  // mean GPU share (gpu_share_pct: NVML, DRM or software CPU time); -1 none
    std::string gpu_share_source;
};

// One host's host-wide figures in a step's windows (samples.host; "" is the file writer's own,
// RunAnalysis::host_label names it).
struct HostUse {
    std::string host;
    double cpu_mean_pct = -1, cpu_max_pct = -1;  // host_cpu_pct
    double gpu_util_mean_pct = -1;               // gpu_util_pct
    std::string gpu_source;
    double mem_used_max_bytes = -1;              // host_mem_used_bytes
    std::optional<uint32_t> sessions;            // its own sessions in the step, where known (a joined run)
    std::string note;                            // why it has no figures ("not judged: no agent on ..."), "" when it has
};

// One host that took part in a joined run (report/host_roster.h).
struct HostPart {
    std::string host;       // its name (the controller's: runs.host)
    std::string role;       // store role: orchestrator, joined
    uint32_t sessions = 0;  // sessions that ran on it
    std::string agent;      // hosts.agent: local, agent, none: <reason>
    bool sampled = false;   // the file holds host-wide samples of its own
    std::string figures;    // whose samples its figures are, or "not judged: no agent on HOST since ..."
};

struct StepAnalysis {
    int idx = 0;
    uint32_t target = 0;
    uint32_t pool_hosts = 0;        // a pool run's hosts taking part (steps.pool_hosts); 0: not recorded
    int64_t started_ns = 0;         // the step began
    std::string shortfall;          // join mode: why it could not get its sessions (steps.shortfall)
    int64_t ended_ns = 0;           // its last window was judged (or ended)
    int64_t measure_start_ns = 0;   // first window start
    int64_t measure_end_ns = 0;     // last window end
    bool measured = false;          // every stored window has a start and an end
    std::vector<WindowAnalysis> windows;
    core::StepVerdict verdict;  // pooled over every window; pass folds in failed windows
    std::optional<std::string> stored;  // the orchestrator's step verdict: "fail" if any window failed
    std::optional<store::VerdictRow> stored_verdict;  // its pooled verdict row, when it stored one
    // Recomputed equals stored: with verdict rows, every figure and reason of the step and its
    // windows (disagreements lists what differs); without, pass/fail only.
    bool agrees = true;
    std::vector<std::string> disagreements;
    std::map<uint32_t, SessionUse> use; // per session id
    // Medians over sessions of per-session percentiles (the p95 one is verdict.p95_median_ms).
    double p50_median_ms = 0, p99_median_ms = 0;
    double latency_p95_median_ms = 0;
    Interval fps_ci, p95_ci;        // over the windows' fps_median / p95_median_ms
    double host_cpu_mean_pct = -1;  // host-wide 'proc' host_cpu_pct in the windows; -1 none
    double host_cpu_max_pct = -1;
    double gpu_util_mean_pct = -1;  // host-wide GPU utilisation (gpu_util_pct) in the windows; -1 none
    std::string gpu_source;         // the sampler they came from ("nvml", "drm", ...)
    double gpu_mem_peak_pct = -1;   // highest GPU memory use in the windows (the SLA's bound); -1 not sampled
    double gpu_share_mean_pct = -1; // mean over sessions of their GPU share; -1 none
    std::string gpu_share_source;
    double mem_used_max_bytes = -1;
    double session_cpu_mean_pct = -1;  // mean over sessions of their mean process CPU %
    // Host-wide figures per host when several hosts recorded them (a pool, a joined run with
    // agents): the host_cpu_*, gpu_util_*, mem_used_* fields above are then -1, never a mix.
    std::vector<HostUse> host_use;
    core::Attribution attribution;     // binding resource and frame split (report/step_attribution.h)
};

using Knee = core::Knee;  // core/step_rules.h: find_knee

struct DeviceUse {
    std::string device_name, device_type, driver_name, driver_info;
    bool software = false;
    int sessions = 0;
};

// Per-session time line of frame interval: p95 of the intervals of frames that began in each
// time bin (NaN: no frame with an interval there: think pause, or not running).
struct HeatRow {
    uint32_t session_id = 0;
    std::string profile;
    std::string host;  // as RunAnalysis::host_label names it
    int64_t started_ns = 0, ended_ns = 0;  // ended_ns: last frame or end when still running
    std::vector<float> p95_ms;
    std::string failure;  // end reason when it failed
};

struct Heatmap {
    int64_t t0 = 0, bin_ns = 1;
    std::vector<HeatRow> rows;
    size_t bins() const { return rows.empty() ? 0 : rows.front().p95_ms.size(); }
};

struct SeriesPoint {
    double t_s = 0;  // seconds since RunAnalysis::t0_ns
    double v = 0;
};

struct Series {
    std::string metric, source, label, unit;
    std::vector<SeriesPoint> points;
};

// Something that went wrong, for the time lines: a failed session or a run-wide event.
struct Mark {
    double t_s = 0;
    std::optional<uint32_t> session_id;
    std::string kind;    // end reason (crash, hang, ...) or event kind (connection-rejected, run-abort)
    std::string detail;
};

// An adaptive search's run replayed with core's search (core/density_search.h): every probe's
// evidence, the answer, and the machine time beside a linear ramp at the same resolution.
struct SearchReport {
    bool adaptive = false;
    core::SearchConfig config;
    uint32_t max_repeats = 0;
    std::vector<core::Probe> probes;
    core::SearchAnswer answer;
    core::MachineTime time;
};

struct RunAnalysis {
    std::string db_path;
    store::RunRow run;
    store::RunStatus status = store::RunStatus::running;  // effective: crashed when the writer died
    std::string status_text;                              // "finished", "did not finish (crashed)", ...
    bool finished() const { return status == store::RunStatus::finished; }
    std::vector<store::HostRow> hosts;

    std::string plan_name;
    std::string plan_note;  // why the plan could only be read in part (""), see analyze()
    Sla default_sla;
    std::map<std::string, Sla> sla;  // per profile
    double knee_margin_pct = 25;
    std::vector<uint32_t> planned_steps;
    uint32_t repeats = 1;
    std::optional<double> host_per_hour;  // plan [cost]: what one host costs per hour
    std::string currency;
    const Sla& sla_for(const std::string& profile) const;

    std::vector<store::SessionRow> sessions;
    // Per session, over the whole session as its BYE said (samples of source 'bye'; absent
    // without a BYE): seatmark's 1 % low (1000 / p99) and MangoHud's "1% Min FPS".
    struct SessionLows {
        double low1_fps = NAN, low1_min_fps = NAN;
    };
    std::map<int, SessionLows> bye_lows;
    // What RDP launchers saw (store/endpoint_rows.h): every logon, and per launched session its arrivals.
    std::vector<store::EndpointLogonRow> endpoint_logons;
    std::map<int, core::EndpointSeries> endpoint;
    std::vector<DeviceUse> devices;
    bool any_software = false;
    std::vector<StepAnalysis> steps;
    uint32_t max_density = 0;               // sessions; 0: no passing step (core::max_density)
    std::optional<int64_t> stored_max_density;  // as the orchestrator stored it (runs.max_density)
    std::optional<size_t> max_density_step; // index into steps
    Knee knee;
    SearchReport search;  // adaptive plans: max density is the search's answer
    // The step whose attribution heads the report: the first measured step above max density
    // (something ran out there), else the last measured one.
    std::optional<size_t> bottleneck_step;
    uint64_t frames = 0;
    // What the plan placed in each step of a pool run (core/pool_shares.h), by steps.idx: the
    // pool's total and every rank's share, known also for a host whose own data is missing.
    std::vector<std::optional<core::PlannedStep>> planned_pool;
    // A pool run (several hosts' databases merged): per-host verdicts and the pool's figures;
    // empty for a single host. Each step's `verdict` above is then the pool's (core::pool_verdict).
    PoolAnalysis pool;
    // A joined run: every host that took part, the controller first; empty for other runs.
    std::vector<HostPart> roster;
    // A [scaling] series repeats the ramp once per pool size: max density, the knee and the
    // pool's per-host figures read the largest pool size's ramp. False: every step is that ramp.
    bool in_main_ramp(size_t step) const;

    int64_t t0_ns = 0, t1_ns = 0;  // the time line: run start .. last thing recorded
    Heatmap heat;
    std::vector<Series> host_series;  // host CPU %, GPU utilisation % where sampled
    std::vector<Mark> marks;          // failures and run-wide trouble, by time
    double seconds(int64_t t_ns) const { return double(t_ns - t0_ns) * 1e-9; }
    // A samples.host as the report names it: "" is the file writer's own host (runs.host).
    std::string host_label(const std::string& host) const { return host.empty() ? run.host : host; }
    // Sessions ran on more than one host (a pool, a joined run): per-session tables and the heat
    // map then name each session's host.
    bool sessions_on_several_hosts() const;
};

struct AnalyzeOptions {
    int heat_bins = 240;
    int threads = 0;  // 0: hardware concurrency, at most 4
    // Progress while reading frames: (frames read, frames in the file). Called from the reader
    // threads' coordinator, a few dozen times at most.
    std::function<void(uint64_t, uint64_t)> progress;
};

// Reads and judges the run. Throws InputError for a file that is not a readable seatmark run
// database (missing, foreign, truncated, damaged), naming the file.
RunAnalysis analyze(const std::string& db_path, const AnalyzeOptions& options = {});

// What differs between a stored verdict row and a recomputed verdict (every figure and
// reason; NaN equals NaN); empty when they are the same.
std::vector<std::string> verdict_differences(const store::VerdictRow& stored, const core::StepVerdict& v);

}  // namespace seatmark::report
