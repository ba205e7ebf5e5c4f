#pragma once
// MPI for `seatmark stage` only: initialised on first use inside the subcommand, finalised by the
// destructor. Finds hosts with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): one writer per host
// (its local rank 0), or every rank when the destination names {rank}.
#include <mpi.h>

#include <string>
#include <vector>

namespace seatmark::stage {

class MpiEnv {
public:
    MpiEnv(int* argc, char*** argv);
    ~MpiEnv();
    MpiEnv(const MpiEnv&) = delete;
    MpiEnv& operator=(const MpiEnv&) = delete;

    int rank = 0, size = 1;
    int local_rank = 0, local_size = 1;  // within this host
    std::string host;

    // Collective helpers on MPI_COMM_WORLD.
    std::string bcast_string(const std::string& s, int root = 0) const;
    std::vector<std::string> gather_strings(const std::string& s, int root = 0) const;  // filled on root
    bool any(bool b) const;
    double max(double v) const;

private:
    MPI_Comm node_ = MPI_COMM_NULL;
};

// {host} and {rank} expanded.
std::string expand_dest(const std::string& pattern, const std::string& host, int rank);

}  // namespace seatmark::stage
