// Join mode's live API and session numbers with real processes: `seatmark run --accept` with its
// live API on, an agent for host desk-a and none for desk-b (two hosts played on this machine
// through --host-name). Known by construction: which pid joined from which host, that desk-a's
// agent reads the same /proc this test reads, that desk-b has no agent, and the join order
// (agent, then desk-a's session, then desk-b's).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>

#include "tests/orchestrator/http_test_client.h"
#include "tests/support/join_run.h"
#include "tests/support/process.h"
#include "tests/support/run_db.h"

using namespace seatmark;
using seatmark::test::count_or_zero;
using seatmark::test::JoinRun;
using seatmark::test::qi;

namespace {

// VmRSS of process `pid` now, in bytes; 0 when it cannot be read.
uint64_t vm_rss(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

// Every "as session N" a session printed.
std::vector<int64_t> session_numbers_said(const std::string& err) {
    std::vector<int64_t> out;
    static const std::regex re("as session ([0-9]+)");
    for (auto it = std::sregex_iterator(err.begin(), err.end(), re); it != std::sregex_iterator(); ++it)
        out.push_back(std::stoll((*it)[1].str()));
    return out;
}

}  // namespace

TEST_CASE("join mode's live API: each session on its own host, figures from that host's agent or null with the reason, one session number everywhere") {
    // A wide SLA: this test is about the figures and numbers, not frame times on a loaded machine.
    JoinRun r("join_timeout = \"60s\"\n[steps]\nlist = [2]\nsettle = \"1s\"\nwindow = \"6s\"\n[[mix]]\nprofile = \"ci-tiny\"\n"
              "[sla]\np95_interval_ms = 2000\nlow1_fps = 0.5\nstutter_pct = 100\n",
              "127.0.0.1:0");
    uint16_t port = 0;
    REQUIRE(test::wait_until(30, [&] { return (port = test::port_in(r.run->err_so_far())) != 0; }));
    // Join order by construction: the agent, then desk-a's session, then desk-b's.
    test::BackgroundProcess agent(r.agent("desk-a"));
    REQUIRE(test::wait_until(30, [&] { return count_or_zero(r.db, "SELECT COUNT(*) FROM events WHERE kind = 'agent-joined'") == 1; }));
    test::BackgroundProcess a(r.session("desk-a", false));
    REQUIRE(test::wait_until(30, [&] { return count_or_zero(r.db, "SELECT COUNT(*) FROM events WHERE kind = 'session-joined'") == 1; }));
    test::BackgroundProcess b(r.session("desk-b", false));

    // Polled until desk-a's session has both figures from its agent (its second sample has the CPU).
    nlohmann::json state;
    std::string metrics;
    uint64_t rss_here = 0;
    const bool seen = test::wait_until(60, [&] {
        auto rep = test::http_get(port, "/api/v1/state");
        if (rep.status != 200) return false;
        state = nlohmann::json::parse(rep.body);
        metrics = test::http_get(port, "/metrics").body;  // the same moment, as near as polling gets
        rss_here = vm_rss(a.pid());
        for (const auto& s : state["sessions"])
            if (s["pid"] == a.pid() && s["rss_bytes"].is_number() && s["rss_bytes"] != 0 && s["cpu_pct"].is_number())
                return state["sessions"].size() == 2;
        return false;
    });
    INFO("state: " << state.dump());
    CHECK(seen);
    const auto res = r.run->wait(120);
    INFO("run stderr: " << res.err);
    REQUIRE(res.exit_code == 0);
    const auto ra = a.wait(30), rb = b.wait(30);
    CHECK(ra.exit_code == 0);
    CHECK(rb.exit_code == 0);
    CHECK(agent.wait(30).exit_code == 0);
    const auto id_of = [&](int pid) { return qi(r.db, "SELECT id FROM sessions WHERE pid = " + std::to_string(pid)); };

    // The number each session said is the one the database (and so the report and monitor) uses.
    for (const auto* p : {&ra, &rb}) {
        const int pid = p == &ra ? a.pid() : b.pid();
        INFO("session " << pid << " stderr: " << p->err);
        const auto said = session_numbers_said(p->err);
        CHECK(!said.empty());
        for (int64_t n : said) CHECK(n == id_of(pid));
    }
    CHECK(qi(r.db, "SELECT COUNT(*) FROM sessions") == 2);

    const std::map<int, std::string> host_of = {{a.pid(), "desk-a"}, {b.pid(), "desk-b"}};
    CHECK(state["run"]["host"] != "desk-a");  // the controller's own name
    for (const auto& s : state["sessions"]) {
        const int pid = s["pid"].get<int>();
        REQUIRE(host_of.count(pid));
        CHECK(s["host"] == host_of.at(pid));  // the host it joined from, not the controller's
        CHECK(s["id"].get<int64_t>() == id_of(pid));
        if (pid == a.pid()) {
            // desk-a's agent read this process's memory; this test reads it too (tolerance: a
            // synthetic session's memory barely moves between the two readings).
            REQUIRE(rss_here > 0);
            CHECK(double(s["rss_bytes"].get<uint64_t>()) == doctest::Approx(double(rss_here)).epsilon(0.5));
            CHECK(s["cpu_pct"].get<double>() >= 0);
            CHECK(s["cpu_pct"].get<double>() <= 100.0 * std::thread::hardware_concurrency() + 1);
            CHECK(s["figures_unavailable"] == "");
        } else {
            // desk-b has no agent: unknown, with the reason; never 0.
            CHECK(s["rss_bytes"].is_null());
            CHECK(s["cpu_pct"].is_null());
            CHECK(s["figures_unavailable"] == "no seatmark agent on host desk-b");
        }
    }
    std::vector<test::PromSample> samples;
    INFO("metrics: " << metrics);
    REQUIRE(test::parse_prometheus(metrics, samples) == "");
    const std::string ida = std::to_string(id_of(a.pid())), idb = std::to_string(id_of(b.pid()));
    const auto* mem_a = test::find_sample(samples, "seatmark_session_resident_memory_bytes", {{"session", ida}, {"host", "desk-a"}});
    REQUIRE(mem_a);
    CHECK(mem_a->value == doctest::Approx(double(rss_here)).epsilon(0.5));
    CHECK_FALSE(test::find_sample(samples, "seatmark_session_resident_memory_bytes", {{"session", idb}}));
    CHECK_FALSE(test::find_sample(samples, "seatmark_session_cpu_percent", {{"session", idb}}));
    const auto* why_b = test::find_sample(samples, "seatmark_session_figures_unavailable",
                                          {{"session", idb}, {"host", "desk-b"}, {"reason", "no seatmark agent on host desk-b"}});
    REQUIRE(why_b);
    CHECK(why_b->value == 1);
    CHECK_FALSE(test::find_sample(samples, "seatmark_session_figures_unavailable", {{"session", ida}}));

}
