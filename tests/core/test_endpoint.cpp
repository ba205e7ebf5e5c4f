// Endpoint figures (core/endpoint.h), their SLA keys (plan parsing with file:line, the one
// verdict library) and how a launched session is judged beside one nobody watches.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/errors.h"
#include "core/endpoint.h"
#include "core/plan.h"
#include "core/step_rules.h"
#include "core/verdict.h"

using namespace seatmark;
using namespace seatmark::core;

namespace {

// n frames at 30 FPS from t=1 s: begin at k*33.3 ms, presented 5 ms later.
std::vector<FrameRecord> frames30(int n, uint64_t first_seq = 0) {
    std::vector<FrameRecord> out;
    for (int k = 0; k < n; ++k) {
        FrameRecord f;
        f.seq = first_seq + uint64_t(k);
        f.t_begin_ns = 1'000'000'000 + int64_t(k) * 33'333'333;
        f.t_present_ns = f.t_begin_ns + 5'000'000;
        f.interval_ns = k ? 33'333'333 : -1;
        out.push_back(f);
    }
    return out;
}

}  // namespace

TEST_CASE("endpoint figures: every other frame arrives 20 ms after its present") {
    const auto frames = frames30(30);
    std::vector<EndpointArrival> arrivals;
    for (const auto& f : frames)
        if (f.seq % 2 == 0) arrivals.push_back({f.seq, f.t_present_ns + 20'000'000});
    arrivals.push_back({4, frames[4].t_present_ns + 90'000'000});  // a repeat of a frame seen already: not a second arrival
    arrivals.push_back({999, 5});                                 // not a frame of the span
    const std::vector<SsimSample> ssim{{0, 0.99}, {10, 0.95}, {999, 0.1}};
    const EndpointFigures e = endpoint_figures(frames, arrivals, ssim, 1.0);
    CHECK(e.rendered == 30);
    CHECK(e.arrivals == 15);
    CHECK(e.fps == doctest::Approx(15));
    CHECK(e.delivered_ratio == doctest::Approx(0.5));
    CHECK(e.latency_p50_ms == doctest::Approx(20));
    CHECK(e.latency_p95_ms == doctest::Approx(20));
    CHECK(e.interval_p50_ms == doctest::Approx(66.667).epsilon(0.001));
    CHECK(e.ssim_samples == 2);
    CHECK(e.ssim_mean == doctest::Approx(0.97));
    CHECK(e.ssim_min == doctest::Approx(0.95));
}

TEST_CASE("endpoint figures: nothing measured is NaN, never 0") {
    const auto none = endpoint_figures({}, {}, {}, 1.0);
    CHECK(none.rendered == 0);
    CHECK(std::isnan(none.fps));
    CHECK(std::isnan(none.delivered_ratio));
    const auto frames = frames30(10);
    const auto silent = endpoint_figures(frames, {}, {}, 1.0);
    CHECK(silent.arrivals == 0);
    CHECK(silent.delivered_ratio == 0);
    CHECK(std::isnan(silent.latency_p95_ms));
    CHECK(std::isnan(silent.ssim_mean));
}

TEST_CASE("endpoint SLA keys: parsed with file:line, judged only for launched sessions") {
    const std::string head = "name = \"x\"\n[steps]\nlist = [2]\n[[mix]]\nprofile = \"ci-tiny\"\n[sla]\n";
    Plan p = parse_plan(head + "endpoint_fps = 20\nendpoint_latency_p95_ms = 50\ndelivered_ratio = 0.8\nssim = 0.9\n", "plan.toml");
    const Sla& sla = p.sla_for("ci-tiny");
    CHECK(sla.endpoint_fps == 20);
    CHECK(sla.endpoint_latency_p95_ms == 50);
    CHECK(sla.delivered_ratio == doctest::Approx(0.8));
    CHECK(sla.ssim == doctest::Approx(0.9));
    try {
        parse_plan(head + "endpoint_fps = 1\ndelivered_ratio = 1.5\n", "plan.toml");
        FAIL("accepted delivered_ratio 1.5");
    } catch (const InputError& e) {
        const std::string what = e.what();
        CHECK(what.find("plan.toml:8") != std::string::npos);
        CHECK(what.find("delivered_ratio") != std::string::npos);
    }

    // Session 1 is watched by a launcher that sees half its frames 80 ms late; session 2 is not launched.
    const auto frames = frames30(30);
    EndpointSeries half;
    for (const auto& f : frames)
        if (f.seq % 2 == 0) half.arrivals.push_back({f.seq, f.t_present_ns + 80'000'000});
    half.ssim = {{2, 0.85}};
    std::vector<SessionSpan> spans{{1, "ci-tiny", 0, std::nullopt, ""}, {2, "ci-tiny", 0, std::nullopt, ""}};
    StepJudge j;
    j.target = 2;
    j.default_sla = sla;
    Sla lenient = sla;
    lenient.p95_interval_ms = 1000;
    lenient.low1_fps = 0;
    j.sla_for = [&](const std::string&) -> const Sla& { return lenient; };
    j.frames = [&](uint32_t, int64_t, int64_t) { return frames; };
    j.endpoint = [&](uint32_t id) -> const EndpointSeries* { return id == 1 ? &half : nullptr; };
    const StepVerdict v = judge_span(j, spans, 1'000'000'000, 2'500'000'000);
    CHECK_FALSE(v.pass);
    CHECK(v.launched == 1);
    CHECK(v.endpoint_fps_worst == doctest::Approx(10));  // 15 arrivals over the 1.5 s span
    CHECK(v.delivered_ratio_worst == doctest::Approx(0.5));
    CHECK(v.endpoint_latency_p95_worst_ms == doctest::Approx(80));
    CHECK(v.ssim_worst == doctest::Approx(0.85));
    REQUIRE(v.reasons.size() == 1);
    const std::string r = v.reasons[0];
    CHECK(r.find("1 of 2 sessions failed; worst session 1: ") == 0);
    CHECK(r.find("endpoint 10.0 FPS < 20.0 FPS") != std::string::npos);
    CHECK(r.find("endpoint latency p95 80.0 ms > 50.0 ms") != std::string::npos);
    CHECK(r.find("delivered 50.0 % < 80.0 %") != std::string::npos);
    CHECK(r.find("SSIM 0.850 < 0.900") != std::string::npos);
    REQUIRE(v.sessions.size() == 2);
    CHECK(v.sessions[0].endpoint.has_value());
    CHECK_FALSE(v.sessions[1].endpoint.has_value());

    // A launched session whose frames never reach the client breaks any endpoint bound.
    EndpointSeries nothing;
    j.endpoint = [&](uint32_t id) -> const EndpointSeries* { return id == 1 ? &nothing : nullptr; };
    const StepVerdict dark = judge_span(j, spans, 1'000'000'000, 2'500'000'000);
    REQUIRE(dark.reasons.size() == 1);
    CHECK(dark.reasons[0] == "1 of 2 sessions failed; worst session 1: no frames arrived at the endpoint");
    // Without endpoint bounds the same figures are measured but not judged.
    lenient.endpoint_fps = lenient.endpoint_latency_p95_ms = lenient.delivered_ratio = lenient.ssim = 0;
    // An arrival after the span's end does not count in it (the live verdict judges just after t1).
    j.endpoint = [&](uint32_t id) -> const EndpointSeries* { return id == 1 ? &half : nullptr; };
    const StepVerdict cut = judge_span(j, spans, 1'000'000'000, 2'000'000'000);
    CHECK(cut.sessions[0].endpoint->arrivals == 14);  // frame 28 arrived at 2.018 s
    const StepVerdict free = judge_span(j, spans, 1'000'000'000, 2'500'000'000);
    CHECK(free.pass);
    CHECK(free.delivered_ratio_worst == doctest::Approx(0.5));
}
