#pragma once
// What the report knows about a pool run (several hosts, one database merged by `seatmark
// merge`): every host's own steps re-judged from its own sessions' frames over its own windows
// (as its orchestrator judged them live), the pool's verdict made from them with core's rule
// (core/pool_rules.h: pass when every host passed), per-host max density, cross-host fairness,
// the host that failed first, clock offsets and the window skew, lost hosts, and scaling
// efficiency E(H) over the steps every host completed. Plain data; report/pool_judge.h fills it.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/verdict.h"
#include "store/records.h"

namespace seatmark::report {

// One host in one step (parallel to RunAnalysis::steps).
struct HostStep {
    int idx = 0;
    uint32_t target = 0;        // sessions this host ran in the step (its stored row's, else its members)
    bool judged = false;        // measured and the host had not been lost by then
    bool lost_here = false;     // the host was lost in this step
    bool idle = false;          // it ran nothing in this step (core::sits_out: beyond a scaling series'
                                // pool size, or a share of 0)
    bool no_data = false;       // it ran the step but its own database is not in this file (a lost
                                // host merged without it): not judged, its verdict not known
    core::StepVerdict verdict;  // recomputed from this host's sessions over its own windows
    std::vector<core::StepVerdict> windows;   // each window's, as RunAnalysis::steps' windows
    std::optional<store::VerdictRow> stored;  // the host's own pooled verdict row, when stored
    std::vector<std::string> disagreements;   // recomputed vs stored (empty: they agree)
    std::optional<int64_t> window_start_ns;   // its first window's start (the run's time base)
    double host_cpu_mean_pct = -1;            // its host_cpu_pct in the windows; -1 none
};

struct HostAnalysis {
    store::HostRow host;
    std::vector<HostStep> steps;
    uint32_t sessions = 0;  // sessions that ran on it
    // core::max_density over its own steps (its sessions per step), and the step it was reached in.
    uint32_t max_density = 0;
    std::optional<size_t> max_density_step;
    std::optional<size_t> first_fail_step;  // the first judged step it failed
    double median_fps = NAN;                // its sessions' median FPS in the fairness step
};

// E(H) for one pool size: max passing sessions on H hosts / (H x max passing sessions on one host).
struct ScalingPoint {
    uint32_t hosts = 0;
    uint32_t max_sessions = 0;  // the pool's max passing sessions on H hosts
    double efficiency = NAN;    // core::scaling_efficiency; NaN without a passing 1-host figure
    // The 1-host figure was not measured on its own: it is the best host's own max density in
    // this run (no [scaling] series).
    bool estimated = false;
};

struct PoolAnalysis {
    std::vector<HostAnalysis> hosts;  // rank order; one entry for a single-host run
    bool is_pool() const { return hosts.size() > 1; }
    // Steps every host completed (none lost before its end): [0, complete_steps).
    size_t complete_steps = 0;
    // Jain's index over the hosts' median FPS in one step: the pool's max-density step, else the
    // last step every host completed and measured.
    std::optional<size_t> fairness_step;
    double fairness = NAN;
    struct FirstFailure {
        std::string host;
        size_t step = 0;
        uint32_t pool_sessions = 0, host_sessions = 0;
        std::string reason;
        std::vector<std::string> also;  // other hosts that failed in the same step
    };
    std::optional<FirstFailure> first_failure;  // the first step any host failed, and why
    // Largest difference between a host's window start and the run's (the reference host's),
    // over every window of every host, in the run's time base; nullopt: no host's own windows stored.
    std::optional<int64_t> window_skew_ns;
    size_t window_skew_hosts = 0;  // hosts whose own window times it is over (fewer than 2: not known)
    std::vector<ScalingPoint> scaling;  // by hosts; empty for a single host
    bool scaling_estimated() const { return !scaling.empty() && scaling.front().estimated; }
};

}  // namespace seatmark::report
