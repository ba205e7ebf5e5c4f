#pragma once
// `seatmark stage`: list on rank 0, pre-check on every writer in parallel, transfer what is
// missing, report. Collective over MPI_COMM_WORLD; every rank returns the same exit status.
#include <string>
#include <vector>

namespace seatmark::stage {

struct StageOptions {
    std::vector<std::string> sources, manifests;
    std::string dest;               // may hold {host} and {rank}
    std::string verify = "size";    // size | checksum
    bool post_verify = false;
    bool buffered = false;          // page-cache writes instead of O_DIRECT
    std::string chunk = "16M";
    int buffers = 3;
    std::string json_path;
    bool quiet = false;
};

// Initialises MPI, stages, finalises MPI. Returns 0, or throws InputError (exit 2, same on every
// rank) or ExitError(1) naming each failed host and why.
int run_stage(const StageOptions& opt);

}  // namespace seatmark::stage
