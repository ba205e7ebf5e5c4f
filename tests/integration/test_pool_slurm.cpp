// A pool run launched by Slurm's srun (two tasks on one node, --mpi=pmix: the PMI Debian's Open
// MPI speaks), on a one-node cluster the test starts itself (tests/support/slurm_cluster.sh:
// munged, slurmctld, slurmd; proctrack/linuxproc, task/none, no cgroups). Skipped, with the
// reason printed, only when the daemons cannot start here.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

const std::string cluster_script = std::string(SEATMARK_SOURCE_DIR) + "/tests/support/slurm_cluster.sh";

// run_process does not search PATH.
std::string on_path(const std::string& name) {
    for (const char* dir : {"/usr/local/bin", "/usr/bin", "/bin"})
        if (access((std::string(dir) + "/" + name).c_str(), X_OK) == 0) return std::string(dir) + "/" + name;
    return name;
}

struct Cluster {
    std::string dir, conf, why_not;
    explicit Cluster(const std::string& d) : dir(d) {
        auto r = run_process({on_path("bash"), cluster_script, "start", dir}, 60);
        const auto at = r.out.find("SLURM_CONF=");
        if (r.exit_code == 0 && at != std::string::npos)
            conf = r.out.substr(at + 11, r.out.find('\n', at) - at - 11);
        else
            why_not = r.out + r.err;
    }
    ~Cluster() { run_process({on_path("bash"), cluster_script, "stop", dir}, 30); }
};

}  // namespace

TEST_CASE("pool: srun -N1 --ntasks-per-node=2 --mpi=pmix runs a pool on a one-node Slurm cluster") {
    TempDir t;
    Cluster c(t.file("slurm"));
    if (c.conf.empty()) SEATMARK_SKIP(c.why_not);
    std::vector<std::string> env = mpi_env;
    env.push_back("SLURM_CONF=" + c.conf);
    // Without an MPI plugin the tasks cannot find each other: refused on every task, nothing run.
    write_file(t.file("pool.toml"), pool_plan("2", "", "1s"));
    auto r = run_process({on_path("srun"), "-N1", "--ntasks-per-node=2", SEATMARK_BIN, "run", t.file("pool.toml"), "--db",
                          t.file("bare.db"), "--host-name", "h{rank}", "-q", "--listen", "off"},
                         60, env);
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("srun --mpi=pmix") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(t.file("bare.db")));

    r = run_process({on_path("srun"), "-N1", "--ntasks-per-node=2", "--mpi=pmix", SEATMARK_BIN, "run", t.file("pool.toml"),
                     "--db", t.file("pool.db"), "--host-name", "h{rank}", "-q", "--listen", "off"},
                    120, env);
    INFO(r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("pool run finished on 2 host(s)") != std::string::npos);
    store::StoreReader m(t.file("pool.db"));
    CHECK(m.run().status == store::RunStatus::finished);
    auto hosts = m.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[0].hostname == "h0");
    CHECK(hosts[1].hostname == "h1");
    CHECK(sessions_per_host(t.file("pool.db")) == std::map<std::string, int64_t>{{"h0", 1}, {"h1", 1}});
}
