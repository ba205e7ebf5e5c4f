#pragma once
// `seatmark run` as one rank of a pool run (under mpirun or srun, one rank per host): start-up
// (host names, assets on every host, clock offsets, the pool's id), the run with the MPI
// coordinator and the pool's ramp, and at the end every host's database sent to rank 0 in
// chunks and merged (store/merge.h). docs/design.md ("Multi-host") describes the whole.
#include <functional>
#include <string>
#include <vector>

#include "core/plan.h"
#include "orchestrator/pool_cli_args.h"
#include "orchestrator/run_controller.h"

namespace seatmark::orchestrator {

// PoolCliArgs::db is the merged database; each host writes DB-stem.HOST.db beside it.
struct PoolArgs : PoolCliArgs {
    std::string host_name;  // "" : this machine's host name; {rank} expands to the MPI rank
    std::vector<std::string> extra_session_args;  // e.g. --synthetic-fps N (benchmarks)
    std::string session_exe;                      // "" : seatmark-session beside this binary
    RunOutcome* outcome = nullptr;                // when set: this rank's run, as run_plan returned it
    // Rank 0 only (`run --push`): a check made before the pool starts, whose message stops every
    // rank alike (exit 2; e.g. a header file that only rank 0's host has), and what to do with the
    // run's database at the end: the merged one (merged = true), or rank 0's own when the run
    // aborted before the merge.
    std::function<std::string()> rank0_check;
    std::function<void(const std::string& db, bool merged)> rank0_end;
};

// Runs this rank's share of the plan; returns the exit code. Throws InputError (exit 2) for
// what stops the pool before it starts (two ranks with one host name, an asset missing on a
// host, a placement the pool cannot hold), on every rank alike.
int run_pool_rank(const core::Plan& plan, const PoolArgs& args);

// The name a rank records: `pattern` with {rank} expanded, or the machine's host name.
std::string pool_host_name(const std::string& pattern, int rank);

}  // namespace seatmark::orchestrator
