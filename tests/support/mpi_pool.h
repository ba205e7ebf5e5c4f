#pragma once
// Helpers of the pool-run tests: a real mpirun with ranks on this machine, each its own host by
// name (--host-name 'h{rank}'), a small pool plan, and queries on the databases it writes.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "store/sqlite_handle.h"
#include "store/store_reader.h"
#include "tests/support/process.h"

namespace seatmark::test {

// As root Open MPI wants --allow-run-as-root; one machine: shared memory and oversubscription.
inline const std::vector<std::string> mpi_env = {
    "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none",
    "OMPI_MCA_rmaps_base_oversubscribe=1", "OMPI_MCA_btl=self,vader"};

inline std::string mpirun_path() {
    for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun"})
        if (access(p, X_OK) == 0) return p;
    return "mpirun";
}

inline std::vector<std::string> mpirun_argv(int ranks) {
    std::vector<std::string> argv = {mpirun_path(), "-np", std::to_string(ranks), "--oversubscribe"};
    if (geteuid() == 0) argv.push_back("--allow-run-as-root");
    return argv;
}

inline std::vector<std::string> pool_argv(int ranks, const std::string& plan, const std::string& db,
                                          const std::string& host_name = "h{rank}") {
    std::vector<std::string> argv = mpirun_argv(ranks);
    argv.insert(argv.end(), {SEATMARK_BIN, "run", plan, "--db", db, "--host-name", host_name, "-q", "--listen", "off"});
    return argv;
}

inline std::string pool_plan(const std::string& steps, const std::string& pool, const std::string& window = "2s",
                             const std::string& extra = "") {
    return "name = \"pool-test\"\n[run]\nallow_software = true\nheartbeat_timeout = \"5s\"\nstop = \"max\"\n" + extra + "[steps]\nlist = [" +
           steps + "]\nsettle = \"1s\"\nwindow = \"" + window +
           "\"\n[[mix]]\nprofile = \"ci-tiny\"\n[pool]\nsync_timeout = \"3s\"\n" + pool;
}

inline int64_t scalar(const std::string& db, const std::string& sql) {
    store::Db d(db, SQLITE_OPEN_READONLY);
    store::Stmt s(d, sql);
    return s.step() ? s.col_int(0) : -1;
}

inline std::map<std::string, int64_t> sessions_per_host(const std::string& db) {
    std::map<std::string, int64_t> n;
    for (const auto& s : store::StoreReader(db).sessions()) ++n[s.host];
    return n;
}

// The pid of the rank-`rank` seatmark whose command line holds `marker` (its plan file), -1 if none.
inline int rank_pid(const std::string& marker, int rank) {
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string env, cmd;
        try {
            env = read_file(e.path().string() + "/environ");
            cmd = read_file(e.path().string() + "/cmdline");
        } catch (...) {
            continue;
        }
        if (cmd.find(marker) != std::string::npos && cmd.find("mpirun") == std::string::npos &&
            env.find("OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + '\0') != std::string::npos)
            return std::stoi(name);
    }
    return -1;
}

}  // namespace seatmark::test
