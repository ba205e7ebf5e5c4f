#include "stage/mpi_env.h"

#include <unistd.h>

#include <cstdlib>

namespace seatmark::stage {

MpiEnv::MpiEnv(int* argc, char*** argv) {
    // A singleton run (no mpirun/srun) as root: Open MPI refuses root unless told; nothing is launched.
    if (geteuid() == 0 && !std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMIX_RANK")) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_);
    MPI_Comm_rank(node_, &local_rank);
    MPI_Comm_size(node_, &local_size);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    host.assign(name, static_cast<size_t>(len));
}

MpiEnv::~MpiEnv() {
    if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
    MPI_Finalize();
}

std::string MpiEnv::bcast_string(const std::string& s, int root) const {
    unsigned long long n = s.size();
    MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD);
    std::string out = rank == root ? s : std::string(n, '\0');
    if (n) MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, root, MPI_COMM_WORLD);
    return out;
}

std::vector<std::string> MpiEnv::gather_strings(const std::string& s, int root) const {
    int n = static_cast<int>(s.size());
    std::vector<int> sizes(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
    MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, MPI_COMM_WORLD);
    int total = 0;
    for (int i = 0; i < size; ++i) {
        displs[static_cast<size_t>(i)] = total;
        total += sizes[static_cast<size_t>(i)];
    }
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Gatherv(s.data(), n, MPI_CHAR, all.data(), sizes.data(), displs.data(), MPI_CHAR, root, MPI_COMM_WORLD);
    std::vector<std::string> out;
    if (rank == root)
        for (int i = 0; i < size; ++i)
            out.push_back(all.substr(static_cast<size_t>(displs[static_cast<size_t>(i)]),
                                     static_cast<size_t>(sizes[static_cast<size_t>(i)])));
    return out;
}

bool MpiEnv::any(bool b) const {
    int in = b ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return out != 0;
}

double MpiEnv::max(double v) const {
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

std::string expand_dest(const std::string& pattern, const std::string& host, int rank) {
    std::string out;
    for (size_t i = 0; i < pattern.size();) {
        if (pattern.compare(i, 6, "{host}") == 0) {
            out += host;
            i += 6;
        } else if (pattern.compare(i, 6, "{rank}") == 0) {
            out += std::to_string(rank);
            i += 6;
        } else {
            out += pattern[i++];
        }
    }
    return out;
}

}  // namespace seatmark::stage
