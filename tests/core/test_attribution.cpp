// Bottleneck attribution rules (core/attribution.h): the binding resource, what could not be
// judged, the CPU on a software renderer, and the frame-time split.
#include <doctest/doctest.h>

#include "core/attribution.h"

using namespace seatmark::core;

namespace {
bool has_not_judged(const Attribution& a, const std::string& name) {
    for (const auto& n : a.not_judged)
        if (n.name == name) return true;
    return false;
}
StepResources gpu_host() {
    StepResources r;
    r.sessions = 24;
    r.gpu_source = "nvml";
    r.gpu_engine_pct = 97;
    r.gpu_mem_pct = 38;
    r.gpu_mem_bw_pct = 30;
    r.enc_pct = 5;
    r.dec_pct = 0;
    r.host_cpu_pct = 41;
    r.run_queue = 6;
    r.cpu_count = 32;
    r.host_mem_pct = 20;
    r.cpu_ms = 1.2;
    r.gpu_ms = 14.0;
    r.interval_ms = 16.7;
    return r;
}
}  // namespace

TEST_CASE("the busiest resource binds, and the headline names it with the next two") {
    Attribution a = attribute(gpu_host());
    REQUIRE(a.binding);
    CHECK(a.resources[*a.binding].name == "GPU 3D engine");
    CHECK(a.headline == "at 24 sessions the binding resource was the GPU 3D engine (97 % busy); host CPU 41 %, GPU memory 38 %");
    CHECK(a.frames == FrameBound::gpu);
    CHECK(a.frames_text.starts_with("GPU-bound"));
    CHECK(a.not_judged.empty());
}

TEST_CASE("full GPU memory, a busy encoder and a long run queue are each named") {
    StepResources r = gpu_host();
    r.gpu_engine_pct = 60;
    r.gpu_mem_pct = 99.5;
    Attribution a = attribute(r);
    CHECK(a.resources[*a.binding].name == "GPU memory");
    CHECK(a.headline.find("GPU memory (100 % in use)") != std::string::npos);

    r = gpu_host();
    r.gpu_engine_pct = 50;
    r.enc_pct = 98;
    a = attribute(r);
    CHECK(a.resources[*a.binding].name == "video encoder");

    r = gpu_host();
    r.gpu_engine_pct = 50;
    r.run_queue = 40;  // 40 runnable on 32 CPUs: over-full, capped at 100 %
    a = attribute(r);
    CHECK(a.resources[*a.binding].name == "CPU run queue");
    CHECK(a.resources[*a.binding].figure == "40.0 runnable on 32 CPUs");
}

TEST_CASE("on a software renderer the CPU binds and the GPU is not judged") {
    StepResources r;
    r.sessions = 8;
    r.software_renderer = true;
    r.host_cpu_pct = 63;
    r.run_queue = 1.5;
    r.cpu_count = 2;
    r.host_mem_pct = 80;  // busier than the CPU figure, but the CPU draws the frames
    r.cpu_ms = 0.4;
    r.gpu_ms = 30;  // lavapipe's "GPU time" is the CPU rasterising
    r.interval_ms = 40;
    Attribution a = attribute(r);
    REQUIRE(a.binding);
    CHECK(a.resources[*a.binding].name == "CPU run queue");  // 75 % of 2 CPUs > 63 %
    CHECK(a.headline.find("since the software renderer draws the frames on the CPU") != std::string::npos);
    CHECK(has_not_judged(a, "GPU 3D engine"));
    CHECK(has_not_judged(a, "video encoder"));
    CHECK(a.frames == FrameBound::cpu);
    CHECK(a.frames_text.find("CPU-bound (the CPU renders)") != std::string::npos);
}

TEST_CASE("missing figures say what could not be judged instead of guessing") {
    StepResources r;
    r.sessions = 4;
    r.host_cpu_pct = 30;
    r.cpu_count = 8;
    Attribution a = attribute(r);
    REQUIRE(a.binding);
    CHECK(a.resources[*a.binding].name == "host CPU");
    CHECK(has_not_judged(a, "GPU 3D engine"));
    CHECK(has_not_judged(a, "CPU run queue"));
    CHECK(a.headline.find("GPU engine not judged (no GPU telemetry)") != std::string::npos);
    CHECK(a.frames == FrameBound::unknown);
    CHECK(a.frames_text.find("not judged") != std::string::npos);
    for (const auto& n : a.not_judged) CHECK_FALSE(n.why.empty());

    Attribution none = attribute(StepResources{});
    CHECK_FALSE(none.binding);
    CHECK(none.headline.find("could not be judged") != std::string::npos);
}

TEST_CASE("frames that mostly wait are neither CPU- nor GPU-bound") {
    StepResources r = gpu_host();
    r.cpu_ms = 2;
    r.gpu_ms = 3;
    r.interval_ms = 16.7;  // a 60 Hz cap
    Attribution a = attribute(r);
    CHECK(a.frames == FrameBound::waiting);
    r.cpu_ms = 12;
    r.gpu_ms = 3;
    CHECK(attribute(r).frames == FrameBound::cpu);
}

TEST_CASE("the CPU's room estimate says when it exceeds the sessions that ran") {
    // Issue 29: "the CPU has room for about 4 such sessions" beside 1 session that failed.
    StepResources r = gpu_host();
    r.sessions = 1;
    r.cpu_count = 2;
    r.session_cpu_mean_pct = 46;
    std::string room;
    for (const auto& c : attribute(r).context)
        if (c.find("room for") != std::string::npos) room = c;
    CHECK(room == "per-session CPU 46 % of one core (busiest session 46 %): the CPU has room for about 4 such sessions, "
                  "more than the 1 that ran in this step: the sessions' own CPU time was not the limit here");
    r.sessions = 5;  // 4.3 sessions' worth of CPU, 5 ran: consistent, nothing added
    for (const auto& c : attribute(r).context)
        if (c.find("room for") != std::string::npos) CHECK(c.ends_with("room for about 4 such sessions"));
}

TEST_CASE("under a cpuset or quota the CPU is judged against the capacity the run had") {
    // Issue 29: pinned to 1 CPU of 2, "room for about 6 such sessions" where 2 fit.
    StepResources r = gpu_host();
    r.sessions = 3;
    r.cpu_count = 2;
    r.cpu_capacity = 1;
    r.cpu_capacity_note = "1 CPU: cpuset 0 of 2 online";
    r.host_cpu_pct = 98;
    r.run_queue = 3;
    r.session_cpu_mean_pct = 33;
    CHECK(usable_cpus(r) == 1);
    const Attribution a = attribute(r);
    bool host = false, rq = false;
    for (const auto& x : a.resources) {
        if (x.name == "host CPU") host = x.figure == "98 % busy of 1 CPU (cpuset 0 of 2 online)";
        if (x.name == "CPU run queue") rq = x.figure == "3.0 runnable on 1 CPU" && x.busy_pct == doctest::Approx(100);
    }
    CHECK(host);
    CHECK(rq);
    std::string room;
    for (const auto& c : a.context)
        if (c.find("room for") != std::string::npos) room = c;
    CHECK(room == "per-session CPU 33 % of one core (busiest session 33 %): the CPU has room for about 3 such sessions "
                  "on its 1 CPU (cpuset 0 of 2 online)");
    r.cpu_capacity = 0;  // none recorded: the machine's CPUs, as before
    CHECK(usable_cpus(r) == 2);
    r.cpu_capacity = 4;  // above the machine: the machine binds
    CHECK(usable_cpus(r) == 2);
}
