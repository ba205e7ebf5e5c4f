// The live state of a pool run (docs/live-api.md): hosts[] and each session's host, written by
// rank 0 and read back by the monitor.
#include <doctest/doctest.h>

#include <cmath>

#include "core/live_json.h"

using namespace seatmark::core;

TEST_CASE("live state: a pool's hosts and each session's host round-trip through the JSON") {
    LiveState s;
    s.host = "h0";
    LiveSession a;
    a.id = 0;
    LiveSession b;
    b.id = 0;
    b.host = "h1";
    s.sessions = {a, b};
    LiveHost h0;
    h0.name = "h0";
    LiveHost h1;
    h1.name = "h1";
    h1.rank = 1;
    h1.status = "lost";
    h1.clock_offset_ns = -21000;
    h1.clock_uncertainty_ns = 253000;
    h1.sessions_running = 3;
    h1.summary_age_s = 0.5;
    s.hosts = {h0, h1};
    nlohmann::json j = state_json(s, 0, {});
    REQUIRE(j["hosts"].size() == 2);
    CHECK(j["hosts"][1]["name"] == "h1");
    CHECK(j["hosts"][1]["status"] == "lost");
    CHECK(j["hosts"][1]["clock_offset_ns"] == -21000);
    CHECK(j["sessions"][0]["host"] == "h0");  // "" is the run's host
    CHECK(j["sessions"][1]["host"] == "h1");
    LiveState back = state_from_json(j);
    REQUIRE(back.hosts.size() == 2);
    CHECK(back.hosts[1].rank == 1);
    CHECK(back.hosts[1].clock_uncertainty_ns == 253000);
    CHECK(back.hosts[1].sessions_running == 3);
    CHECK(back.hosts[1].summary_age_s == doctest::Approx(0.5));
    CHECK(std::isnan(back.hosts[0].summary_age_s) == false);
    CHECK(back.sessions[1].host == "h1");
    // A single host lists none.
    CHECK(state_json(LiveState{}, 0, {})["hosts"].empty());
}
