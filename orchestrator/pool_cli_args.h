#pragma once
// What `seatmark run` (as a rank under mpirun or srun) and `seatmark demo --hosts` take alike from
// their command lines for a pool: one struct, so an option both pass on is added in one place.
#include <string>

namespace seatmark::orchestrator {

struct PoolCliArgs {
    std::string db;             // the merged database (rank 0); "": the plan's (run) or OUT/run.db (demo)
    bool quiet = false, json = false;
    std::string listen, token;  // rank 0's live API; "off": none
};

}  // namespace seatmark::orchestrator
