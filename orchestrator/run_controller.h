#pragma once
// `seatmark run`: ramps sessions step by step on this host, judges each step
// against the plan's SLA, and records everything into one SQLite file.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/live_observer.h"
#include "orchestrator/step_seams.h"
#include "core/plan.h"
#include "core/step_rules.h"
#include "store/records.h"

namespace seatmark::orchestrator {

class SessionHost;
class SpanFrames;

// This host as one rank of a pool run (orchestrator/pool_run.h); the controller names itself
// by it and records the other hosts' rows beside its own.
struct PoolRunInfo {
    std::string host_name;  // recorded as runs.host, hosts.hostname, sessions.host
    int rank = 0;
    std::string pool_id;
    // The other hosts' rows (offsets into this host's time base; lost ones marked), asked at the
    // start and again at the end.
    std::function<std::vector<store::HostInfo>()> other_hosts;
    std::function<bool()> host_lost;  // a host was lost: the run ends 'degraded'
    // The hosts taking part in step `index` (steps.pool_hosts): the pool, or a scaling series' size.
    std::function<std::optional<uint32_t>(size_t)> step_hosts;
};

struct RunOptions {
    std::string db_path;         // overrides the plan's database path when not empty
    bool overwrite_db = false;   // replace an existing database (demo only)
    bool quiet = false;          // no live status line
    std::string session_exe;     // the session executable; default seatmark-session beside this binary
    std::vector<std::string> extra_session_args;  // e.g. --synthetic-fps N for benchmarks
    LiveObserver* live = nullptr;  // the live API, when one serves this run
    // The step machine's seams (orchestrator/step_seams.h), owned by the caller; null: this host
    // alone (LocalCoordinator) and the plan's linear ramp (LinearPlanner).
    StepCoordinator* coordinator = nullptr;
    StepPlanner* planner = nullptr;
    // Where sessions come from; empty: spawned here, one seatmark-session process each. Called
    // once while the run is set up (before its first step), with the controller's SessionHost
    // (orchestrator/session_host.h); the source lives as long as the run.
    std::function<std::unique_ptr<SessionSource>(SessionHost&)> session_source;
    const PoolRunInfo* pool = nullptr;  // null: a single host
    // Where the judge reads closed spans' frames (orchestrator/judge_worker.h), opened on the
    // run's database once it exists; empty: a read-only connection of its own. Tests wrap it.
    std::function<std::unique_ptr<SpanFrames>(const std::string& db_path)> span_frames;
};

// The devices a step's sessions rendered on, as they said in their HELLO: one entry per device.
struct StepDevice {
    std::string name;            // "" : the session never said (it failed before its HELLO)
    bool software = false;       // a CPU renderer (lavapipe, SwiftShader, WARP)
    uint32_t sessions = 0;
};

struct StepOutcome {
    uint32_t index = 0;
    core::StepVerdict verdict;
    bool judged = false;         // false when the run stopped before the step was measured
    std::vector<StepDevice> devices;  // by first session; empty when no session was judged
};

struct RunOutcome {
    std::string db_path;         // the run database; where a copy was kept when its path was lost mid-run
    std::string status;          // finished, aborted, degraded (a pool run that lost a host)
    std::vector<StepOutcome> steps;
    int64_t max_density = 0;     // last step such that it and every step below passed; 0 if none
    uint64_t frames_stored = 0;
    uint64_t frames_lost = 0;
    double wall_s = 0;
    double orchestrator_cpu_s = 0;  // this process's CPU time over the run
    double measured_wall_s = 0;     // time inside measurement windows
    double measured_cpu_s = 0;      // this process's CPU time inside them (steady state: no spawning)
    std::string abort_cause;        // why the run stopped itself early (the database failed), "" otherwise
    // The event loop's health: its longest single pass (handlers run back to back), and the
    // longest judgement of a closed span (the store's commit, the read-back, the rules).
    double longest_loop_pass_s = 0;
    double longest_loop_pass_at_s = 0;  // when it began, from the run's start
    double longest_running_pass_s = 0;  // the longest before the run began to stop (its end commits the store)
    double longest_judge_s = 0;
};

// Runs the plan to its end (or until Ctrl-C). Throws InputError for what must
// be fixed before a run can start (existing database, missing asset).
RunOutcome run_plan(const core::Plan& plan, const RunOptions& opts);

}  // namespace seatmark::orchestrator
