#pragma once
// `seatmark demo --hosts H`: a pool of H hosts on this machine. Writes the built-in pool plan
// (core::demo_pool_plan_text: the ramp on 1 host, then on H) into OUT, starts `mpirun -np H`
// (found on PATH) with this seatmark as every rank, each rank its own host by name
// (--host-name demo-h{rank}), and waits; rank 0 merges the hosts' databases into OUT/run.db.
#include <string>

#include "orchestrator/pool_cli_args.h"

namespace seatmark::orchestrator {

// PoolCliArgs::db "" : OUT/run.db (replaced with its host files when present).
struct PoolDemoArgs : PoolCliArgs {
    unsigned hosts = 2;
    bool quick = false;
    std::string out;
};

// mpirun's path on PATH; throws InputError saying what to install when there is none.
std::string find_mpirun();

// Runs the pool and returns mpirun's exit code; `db_out` is the merged database's path.
int run_pool_demo(const PoolDemoArgs& a, std::string& db_out);

}  // namespace seatmark::orchestrator
