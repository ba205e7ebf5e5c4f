// `seatmark demo --hosts 2`: a two-host pool on this machine through the real mpirun on PATH,
// merged and reported; without mpirun on PATH it says what to install.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "store/store_reader.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("pool: seatmark demo --hosts 2 runs a two-host pool with mpirun and writes its report") {
    TempDir t;
    std::vector<std::string> env = mpi_env;
    env.push_back("PATH=" + std::filesystem::path(mpirun_path()).parent_path().string() + ":/usr/bin:/bin");
    auto r = run_process({SEATMARK_BIN, "demo", "--hosts", "2", "--quick", "--out", t.path, "-q", "--listen", "off"},
                         150, env);
    INFO(r.err);
    INFO(r.out);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("pool run finished on 2 host(s)") != std::string::npos);
    CHECK(std::filesystem::exists(t.file("report/index.html")));
    store::StoreReader m(t.file("run.db"));
    auto hosts = m.hosts();
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[0].hostname == "demo-h0");
    CHECK(hosts[1].hostname == "demo-h1");
    CHECK(m.scaling().size() == 2);  // the ramp on 1 host, then on 2
    CHECK(std::filesystem::exists(t.file("pool-demo.toml")));
}

TEST_CASE("pool: seatmark demo --hosts without mpirun on PATH says what to install") {
    TempDir t;
    auto r = run_process({SEATMARK_BIN, "demo", "--hosts", "2", "--out", t.path, "-q", "--listen", "off"}, 30,
                         {"PATH=" + t.path});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("no mpirun on PATH") != std::string::npos);
    CHECK(r.err.find("apt-get install openmpi-bin") != std::string::npos);
}
