// A session's process figures in the live API's JSON and Prometheus text: known ones as numbers
// with its own host, unknown ones null (JSON) or absent (Prometheus) with the reason, never 0;
// the monitor reads them back as they were.
#include <doctest/doctest.h>

#include <cmath>
#include <deque>

#include "core/live_json.h"
#include "orchestrator/live_metrics.h"
#include "tests/orchestrator/http_test_client.h"

using namespace seatmark;

TEST_CASE("live figures: a joined session without an agent is null with the reason, one with an agent has its numbers") {
    core::LiveState s;
    s.host = "controller";
    core::LiveSession known, unknown;
    known.id = 0;
    known.host = "desk-a";
    known.profile = unknown.profile = "ci-tiny";
    known.state = unknown.state = "running";
    known.cpu_pct = 12.5;
    known.rss_bytes = 125'000'000;
    unknown.id = 1;
    unknown.host = "desk-b";
    unknown.cpu_pct = NAN;
    unknown.figures_unavailable = "no seatmark agent on host desk-b";
    s.sessions = {known, unknown};

    const auto j = core::state_json(s, 0, {}, nullptr);
    REQUIRE(j["sessions"].size() == 2);
    CHECK(j["sessions"][0]["host"] == "desk-a");
    CHECK(j["sessions"][0]["rss_bytes"] == 125'000'000);
    CHECK(j["sessions"][0]["cpu_pct"] == 12.5);
    CHECK(j["sessions"][0]["figures_unavailable"] == "");
    CHECK(j["sessions"][1]["host"] == "desk-b");
    CHECK(j["sessions"][1]["rss_bytes"].is_null());
    CHECK(j["sessions"][1]["cpu_pct"].is_null());
    CHECK(j["sessions"][1]["figures_unavailable"] == "no seatmark agent on host desk-b");

    // The monitor's reading of it.
    const core::LiveState back = core::state_from_json(j);
    REQUIRE(back.sessions.size() == 2);
    CHECK(back.sessions[0].rss_bytes == uint64_t(125'000'000));
    CHECK_FALSE(back.sessions[1].rss_bytes);
    CHECK(std::isnan(back.sessions[1].cpu_pct));
    CHECK(back.sessions[1].figures_unavailable == "no seatmark agent on host desk-b");

    std::vector<test::PromSample> samples;
    const std::string text = orchestrator::prometheus_text(s, {});
    INFO(text);
    REQUIRE(test::parse_prometheus(text, samples) == "");
    const auto* mem = test::find_sample(samples, "seatmark_session_resident_memory_bytes", {{"session", "0"}, {"host", "desk-a"}});
    REQUIRE(mem);
    CHECK(mem->value == 125'000'000);
    CHECK_FALSE(test::find_sample(samples, "seatmark_session_resident_memory_bytes", {{"session", "1"}}));
    CHECK_FALSE(test::find_sample(samples, "seatmark_session_cpu_percent", {{"session", "1"}}));
    const auto* why = test::find_sample(samples, "seatmark_session_figures_unavailable",
                                        {{"session", "1"}, {"host", "desk-b"}, {"reason", "no seatmark agent on host desk-b"}});
    REQUIRE(why);
    CHECK(why->value == 1);
    CHECK_FALSE(test::find_sample(samples, "seatmark_session_figures_unavailable", {{"session", "0"}}));
    // A session of the run's own host is labelled with it.
    s.sessions[0].host.clear();
    samples.clear();
    REQUIRE(test::parse_prometheus(orchestrator::prometheus_text(s, {}), samples) == "");
    CHECK(test::find_sample(samples, "seatmark_session_up", {{"session", "0"}, {"host", "controller"}}));
}
