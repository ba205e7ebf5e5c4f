#pragma once
// A run plan: which sessions to start, in which steps, how long to measure,
// and the service level each step is judged against. TOML, documented by the
// commented example in workloads/plans/example.toml.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/pool_rules.h"
#include "core/sla.h"

namespace seatmark::core {

struct MixEntry {
    std::string profile;  // built-in name or a profile file (relative to the plan's folder)
    double weight = 1;    // share of sessions; sessions are assigned in smooth weighted round robin
    int line = 0;
};

enum class StopRule { first_failure, max };

// Where sessions come from: started by the orchestrator as its children, or started elsewhere
// (users' logons) and joined over TCP (`seatmark run --accept`, common/join_protocol.h).
enum class SessionsMode { spawn, join };

// The most sessions one step may target; steps strictly increase, so also the most steps a plan has.
// Readers of a run (monitor, report) bound what they are told by these before sizing anything.
inline constexpr uint32_t max_step_sessions = 4096;
inline constexpr uint32_t max_plan_steps = max_step_sessions;

// A workload asset the run needs on this host (staged with `seatmark stage`): a path, and
// optionally the size and XXH3-64 it must have. run.assets entries are "path" or
// { path = "...", size = 123, xxh3 = "0123456789abcdef" }.
struct AssetSpec {
    std::string path;
    std::optional<uint64_t> size;
    std::optional<uint64_t> xxh3;
    std::string where;  // "plan.toml:LINE:COL: " of the entry, for messages
    bool pack = false;  // a .smpack: also checked against its own header (size, payload XXH3)
};

// `[steps] search = "adaptive"`: instead of a list, the run searches [min, max] for the max
// density to within `resolution` sessions (core/density_search.h): geometric growth until a probe
// fails, then bisection. Each probe measures `repeats` windows at least and adds windows until the
// deciding figure's confidence interval lies on one side of its SLA bound, at most `max_repeats`.
struct SearchPlan {
    bool adaptive = false;
    uint32_t min = 1, max = 0, resolution = 1;
    uint32_t max_repeats = 6;
};

// `[cost]`: what one host costs per hour (currency is free text), for cost per user-hour.
struct CostPlan {
    std::optional<double> host_per_hour;
    std::string currency;
};

// A pool run's rules ([pool]; only read when `seatmark run` runs under mpirun/srun).
struct PoolPlan {
    Placement placement = Placement::breadth_first;
    uint32_t max_sessions_per_host = 0;  // depth-first: the most sessions one host takes (0: none given)
    double sync_timeout_s = 30;          // longest wait for another host beyond what its work takes
    std::string where;                   // "plan.toml:LINE:COL: " of [pool] (or the file), for messages
    // [scaling] hosts = [1, 2, 4]: the ramp runs on the first 1, then 2, then 4 hosts of the pool
    // (the others idle), so E(H) comes from one run. Empty: one ramp on every host.
    std::vector<uint32_t> scaling_hosts;
    std::string scaling_where;           // "plan.toml:LINE:COL: " of [scaling] hosts
    // The pool sizes the ramp runs on: the series, or {hosts} without one.
    std::vector<uint32_t> series(uint32_t hosts) const {
        return scaling_hosts.empty() ? std::vector<uint32_t>{hosts} : scaling_hosts;
    }
};

struct Plan {
    std::string name;
    std::string source;           // the plan file, or "built-in demo plan"
    std::string text;             // the plan as written, stored in the database
    std::string db_path = "run.db";
    std::string device;           // passed to every session's --device
    // false (the default): a session on a CPU renderer (lavapipe) fails with reason
    // software-fallback, so a plan written for GPUs never measures the CPU by accident.
    bool allow_software = false;
    bool allow_software_given = false;  // [run] sets allow_software (the refusal says whether it is the default)
    double heartbeat_timeout_s = 10;
    SessionsMode sessions = SessionsMode::spawn;
    double join_timeout_s = 300;  // join mode: how long a step waits for enough sessions to join
    StopRule stop = StopRule::first_failure;
    std::vector<uint32_t> steps;  // target session counts, strictly increasing
    double settle_s = 5;          // after a step's sessions started, before measuring
    double window_s = 20;         // one measurement window
    uint32_t repeats = 1;         // measurement windows per step (adaptive: the least per probe)
    SearchPlan search;            // adaptive: steps holds {min, max} only, for the limits readers size by
    CostPlan cost;
    double knee_margin_pct = 25;  // VSImax-style knee: p95 leaves the 1-session baseline by this much
    std::vector<MixEntry> mix;
    Sla default_sla;
    std::map<std::string, Sla> sla;  // per profile name; default_sla otherwise
    PoolPlan pool;                   // [pool]: how a pool run places sessions and how long hosts wait
    std::vector<AssetSpec> assets;   // files that must be present and valid before any session starts:
                                     // run.assets, run.stage_json's files, and every mix profile's [scene] model

    const Sla& sla_for(const std::string& profile) const;
    // Profile of the n-th session (0-based) under the mix's weights.
    std::string profile_for(uint32_t n) const;
    uint32_t max_sessions() const { return steps.empty() ? 0 : steps.back(); }
    // Worst-case length of the measured part of the run (settle + windows per step).
    double planned_seconds() const;
};

// Why a pool of `hosts` hosts cannot run the plan ("" when it can): a [scaling] series wanting more
// hosts than the pool has, depth-first placement with too small a max_sessions_per_host for a step
// (on any pool size of the series), naming the plan's file:line.
std::string pool_plan_problem(const Plan& plan, uint32_t hosts);

// Parses a plan; `source` names it in messages; relative profile paths resolve against `base_dir`.
// Throws InputError with file:line:col for bad values and unknown keys.
Plan parse_plan(std::string_view text, const std::string& source, const std::string& base_dir = ".");
Plan load_plan(const std::string& path);

// The built-in plan `seatmark demo` runs: ci-tiny sessions, steps 1, 2, 4, 6, 8, short windows.
std::string_view demo_plan_text();
// The plan `seatmark demo --hosts H` runs: a scaling series on 1 and H hosts, 1, 2, 3 sessions
// per host (per-host placement). `quick`: 1 and 2 per host, 1 s settle, 2 s window (to see it work).
std::string demo_pool_plan_text(uint32_t hosts, bool quick);

}  // namespace seatmark::core
