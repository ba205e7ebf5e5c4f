// Plot arithmetic and the monitor's small helpers.
#include <doctest/doctest.h>

#include <cmath>

#include "common/errors.h"
#include "monitor/http_client.h"
#include "monitor/monitor_data.h"
#include "monitor/plot.h"

using namespace seatmark;
using namespace seatmark::monitor;

TEST_CASE("min/max buckets keep a single spike at any zoom") {
    std::vector<double> x;
    std::vector<float> y;
    for (int i = 0; i < 100000; ++i) {
        x.push_back(i * 0.016);
        y.push_back(i == 54321 ? 250.0f : 16.0f + float(i % 7) * 0.1f);
    }
    for (int pixels : {10, 300, 1200}) {
        auto b = bucketize(x.data(), x.size(), [&](size_t i) { return double(y[i]); }, 0, x.back() + 1e-9, pixels);
        float top = 0, bottom = 1e9f;
        for (const auto& k : b)
            if (!k.empty) top = std::max(top, k.max), bottom = std::min(bottom, k.min);
        CHECK(top == 250.0f);
        CHECK(bottom == 16.0f);
        size_t with_spike = 0;
        for (const auto& k : b) with_spike += !k.empty && k.max == 250.0f;
        CHECK(with_spike == 1);
    }
    // NaN (a stretch's first frame) is skipped, not drawn as zero.
    std::vector<double> xs = {0, 1, 2};
    auto b = bucketize(xs.data(), 3, [](size_t i) { return i == 1 ? NAN : 5.0; }, 0, 3, 3);
    CHECK(b[1].empty);
    CHECK(b[0].min == 5.0f);
    // The bucket after a break knows it, so the trace is not joined across the gap.
    CHECK_FALSE(b[0].gap_before);
    CHECK(b[2].gap_before);
    // A break and the next value in one bucket: that bucket starts after the gap, the next does not.
    std::vector<double> xs2 = {0, 1.2, 1.5, 2.5};
    auto b2 = bucketize(xs2.data(), 4, [](size_t i) { return i == 1 ? NAN : 5.0; }, 0, 3, 3);
    CHECK(b2[1].gap_before);
    CHECK_FALSE(b2[2].gap_before);
}

TEST_CASE("axis ceilings are round numbers") {
    CHECK(nice_ceiling(33.4) == doctest::Approx(50));
    CHECK(nice_ceiling(61) == doctest::Approx(75));
    CHECK(nice_ceiling(0.2, 10) == doctest::Approx(10));
    CHECK(nice_ceiling(NAN, 10) == doctest::Approx(10));
    CHECK(nice_ceiling(101) == doctest::Approx(150));
}

TEST_CASE("step bands from the history, with verdicts") {
    std::vector<core::LiveHistoryPoint> h;
    for (int t = 0; t < 30; ++t) {
        core::LiveHistoryPoint p;
        p.t_s = t;
        p.step = t < 10 ? 1 : t < 20 ? 2 : 3;
        p.target = p.step * 2;
        h.push_back(p);
    }
    std::vector<core::LiveStep> v = {{0, 2, true, 60, 17, ""}, {1, 4, false, 40, 45, "p95"}};
    auto b = bands_from_history(h, v, 31);
    REQUIRE(b.size() == 3);
    CHECK(b[0].t0_s == 0);
    CHECK(b[0].t1_s == 10);
    CHECK(b[0].verdict == 1);
    CHECK(b[1].verdict == 0);
    CHECK(b[2].verdict == -1);
    CHECK(b[2].t1_s == 31);
    CHECK(b[2].sessions == 6);
}

TEST_CASE("events read as one line each, failures marked") {
    core::LiveEvent e;
    e.t_unix_ns = 5'000'000'000;
    e.data = core::SessionEndEvent{3, "crash", true, "signal 11"};
    auto l = describe_event(e, 2'000'000'000);
    CHECK(l.bad);
    CHECK(l.t_s == doctest::Approx(3));
    CHECK(l.text == "session 3 ended: crash - signal 11");
    e.data = core::StepVerdictEvent{2, 4, true, 58.2, 19.5, ""};
    l = describe_event(e, 0);
    CHECK_FALSE(l.bad);
    CHECK(l.text.find("step 2 (4 sessions): PASS") == 0);
    CHECK(is_failure_state("hang"));
    CHECK_FALSE(is_failure_state("ok"));
}

TEST_CASE("the event log counts failed steps, session failures and faults each by name") {
    // Issue 29: "Events 22, 4 failures" when no session had failed (the failures were the ramp's
    // failing steps).
    std::vector<EventLine> ev(22);
    CHECK(events_summary(ev) == "22");
    ev[3].cls = ev[9].cls = EventClass::step_fail;
    ev[4].cls = EventClass::step_pass;
    CHECK(events_summary(ev) == "22: 2 failed steps");
    ev[5].cls = EventClass::session_failure;
    ev[6].cls = EventClass::fault;
    CHECK(events_summary(ev) == "22: 2 failed steps, 1 session failure, 1 fault");

    core::LiveEvent e;
    e.data = core::StepVerdictEvent{3, 6, false, 20.0, 60.0, "p95 60 ms > 33.3 ms"};
    CHECK(describe_event(e, 0).cls == EventClass::step_fail);
    e.data = core::StepVerdictEvent{2, 4, true, 58.2, 19.5, ""};
    CHECK(describe_event(e, 0).cls == EventClass::step_pass);
    e.data = core::SessionEndEvent{1, "ok", false, ""};
    CHECK(describe_event(e, 0).cls == EventClass::info);
    e.data = core::SessionEndEvent{1, "hang", true, ""};
    CHECK(describe_event(e, 0).cls == EventClass::session_failure);
    e.data = core::RunEndEvent{"aborted", ""};
    CHECK(describe_event(e, 0).cls == EventClass::fault);
}

TEST_CASE("max density so far: 0 is never shown as good") {
    core::LiveState s;
    CHECK(max_density_tone(s) == Tone::neutral);  // nothing judged yet
    s.finished_steps.push_back({});
    s.finished_steps.back().pass = false;
    s.max_density_so_far = 0;
    CHECK(max_density_tone(s) == Tone::bad);  // judged, none passed
    s.finished_steps.front().pass = true;
    s.max_density_so_far = 2;
    CHECK(max_density_tone(s) == Tone::good);
    s.finished_steps.push_back({});
    s.finished_steps.back().pass = false;
    CHECK(max_density_tone(s) == Tone::warn);  // the ramp found its limit above 2
}

TEST_CASE("monitor URLs") {
    auto u = parse_url("http://127.0.0.1:7879");
    CHECK(u.host == "127.0.0.1");
    CHECK(u.port == 7879);
    CHECK(parse_url("localhost:80").port == 80);
    CHECK(parse_url("http://[::1]:7878/").host == "::1");
    CHECK(parse_url("http://h:1/prefix/").base_path == "/prefix");
    CHECK(parse_url("http://h:1").text() == "http://h:1");
    CHECK_THROWS_AS(parse_url("https://h:1"), InputError);
    CHECK_THROWS_AS(parse_url("http://h:99999"), InputError);
    CHECK_THROWS_AS(parse_url("http://:80"), InputError);
}
