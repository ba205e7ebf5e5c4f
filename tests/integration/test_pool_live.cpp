// Rank 0 of a real 2-rank mpirun serves the live API for the whole pool: hosts[] with each
// host's rank, status and clock offset, and the other host's sessions (with their host) from the
// summaries it sends over MPI; finished steps and step-verdict events are the pool's.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "tests/orchestrator/http_test_client.h"
#include "tests/support/mpi_pool.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("pool: rank 0 serves the live API for the whole pool, hosts and every host's sessions") {
    TempDir t;
    // Two steps, so the first one's verdict is served while the second runs.
    write_file(t.file("pool.toml"), pool_plan("2, 4", "", "3s"));
    std::vector<std::string> argv = mpirun_argv(2);
    argv.insert(argv.end(), {SEATMARK_BIN, "run", t.file("pool.toml"), "--db", t.file("pool.db"), "--host-name",
                             "h{rank}", "-q", "--listen", "127.0.0.1:0"});
    BackgroundProcess mpirun(argv, mpi_env);
    auto err = [&] {
        std::ifstream f("/proc/" + std::to_string(mpirun.pid()) + "/fd/2");
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    };
    uint16_t port = 0;
    REQUIRE(wait_until(60, [&] { return (port = port_in(err())) != 0; }));
    CHECK(err().find("live API for the whole pool") != std::string::npos);
    // The event stream from the start; it ends when the run does.
    std::string stream;
    std::thread reader([&] { stream = http_exchange(port, "GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n", 120); });
    nlohmann::json state;
    bool both = false;
    wait_until(90, [&] {
        auto r = http_get(port, "/api/v1/state");
        if (r.status != 200) return false;
        state = nlohmann::json::parse(r.body);
        int h0 = 0, h1 = 0;
        for (const auto& s : state["sessions"]) {
            h0 += s["host"] == "h0" && s["state"] == "running";
            h1 += s["host"] == "h1" && s["state"] == "running";
        }
        both = h0 == 1 && h1 == 1;
        return both;
    });
    INFO(state.dump());
    CHECK(both);
    REQUIRE(state["hosts"].size() == 2);
    const auto& a = state["hosts"][0];
    const auto& b = state["hosts"][1];
    CHECK(a["name"] == "h0");
    CHECK(a["rank"] == 0);
    CHECK(a["clock_offset_ns"] == 0);
    CHECK(b["name"] == "h1");
    CHECK(b["rank"] == 1);
    CHECK(b["status"] == "ok");
    CHECK(b["clock_uncertainty_ns"].get<int64_t>() > 0);
    CHECK(b["sessions_running"] == 1);
    CHECK(b["summary_age_s"].get<double>() < 5);
    CHECK(state["step"]["target"] == 2);  // the pool's: 1 + 1
    // The first step's verdict as the pool judged it (SharePlanner's vote), not rank 0's own
    // share of it: 2 sessions, and the merged file's pool verdict row agrees.
    nlohmann::json steps;
    wait_until(60, [&] {
        auto v = http_get(port, "/api/v1/state");
        if (v.status != 200) return false;
        steps = nlohmann::json::parse(v.body)["verdict"]["steps"];
        return !steps.empty();
    });
    INFO(steps.dump());
    REQUIRE(!steps.empty());
    CHECK(steps[0]["step"] == 1);
    CHECK(steps[0]["sessions"] == 2);
    auto r = mpirun.wait(90);
    reader.join();
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // Every step's step-verdict event is the pool's too, sent once the pool voted: the pool's
    // total and the merged file's pool row.
    const auto verdicts = sse_data(stream, "step-verdict");
    INFO(stream);
    REQUIRE(verdicts.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        CAPTURE(i);
        const auto e = nlohmann::json::parse(verdicts[i])["data"];
        const std::string where = " FROM verdicts WHERE host = '' AND repeat = -1 AND step_idx = " + std::to_string(i);
        CHECK(e["step"] == i + 1);
        CHECK(e["sessions"] == scalar(t.file("pool.db"), "SELECT sessions" + where));
        CHECK(e["sessions"] == 2 * (i + 1));  // rank 0's own share was half of it
        const bool pass = scalar(t.file("pool.db"), "SELECT pass" + where) == 1;
        CHECK(e["pass"].get<bool>() == pass);
        if (i == 0) CHECK(steps[0]["pass"].get<bool>() == pass);
        if (!pass) CHECK(e["reason"].get<std::string>().rfind("h", 0) == 0);  // names the host: "h0: ..." or "h1: ..."
    }
}
