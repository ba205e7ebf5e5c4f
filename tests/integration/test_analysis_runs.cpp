// Issue 17 on real runs: bottleneck attribution on lavapipe (the CPU draws the frames) and with
// the fake NVML library (tests/fakes/fake_nvml.cpp, loaded by the real NVML loader) reporting a
// saturated GPU engine, a full GPU memory and a busy encoder; and an adaptive search run end to
// end (real session processes, synthetic frames), its stored answer equal to the report's replay.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/plan.h"
#include "orchestrator/run_controller.h"
#include "report/analysis.h"
#include "report/words.h"
#include "store/store_reader.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

std::string session_exe() { return (std::filesystem::path(SEATMARK_BIN).parent_path() / "seatmark-session").string(); }

const core::Attribution& headline_attribution(const report::RunAnalysis& a) {
    REQUIRE(a.bottleneck_step);
    return a.steps[*a.bottleneck_step].attribution;
}

std::string binding(const core::Attribution& t) {
    REQUIRE(t.binding);
    return t.resources[*t.binding].name;
}

}  // namespace

TEST_CASE("attribution on a real lavapipe run: the CPU binds, the GPU is not judged") {
    TempDir dir;
    write_file(dir.file("plan.toml"), "name = \"cpu\"\n[run]\nallow_software = true\nstop = \"max\"\n[steps]\nlist = [1, 2]\nsettle = \"1s\"\n"
                                      "window = \"1500ms\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}), 120);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    report::RunAnalysis a = report::analyze(dir.file("run.db"));
    REQUIRE(a.any_software);
    for (const auto& s : a.steps) {
        INFO("step " << s.target);
        const auto& t = s.attribution;
        const std::string b = binding(t);
        CHECK((b == "host CPU" || b == "CPU run queue"));
        CHECK(t.headline.find("since the software renderer draws the frames on the CPU") != std::string::npos);
        bool gpu_not_judged = false;
        for (const auto& n : t.not_judged) gpu_not_judged |= n.name == "GPU 3D engine" && n.why.find("software renderer") == 0;
        CHECK(gpu_not_judged);
        CHECK(t.frames != core::FrameBound::gpu);
        // The run queue was sampled (host_run_queue) and judged against the host's CPUs.
        bool rq = false;
        for (const auto& x : t.resources) rq |= x.name == "CPU run queue";
        CHECK(rq);
    }
}

TEST_CASE("attribution with the fake NVML library: saturated GPU engine, full GPU memory, busy encoder") {
    struct Case {
        std::string device, expected;
    };
    // 100 %: the host CPU of this shared machine may be saturated too; a tie keeps the listed order
    // (GPU figures first), so the GPU's saturated resource is named.
    for (const Case& c : {Case{"util=100 mem_util=10 mem_total=8000000000 mem_used=1000000000 enc=0 dec=0", "GPU 3D engine"},
                          Case{"util=40 mem_util=10 mem_total=8000000000 mem_used=8000000000 enc=0 dec=0", "GPU memory"},
                          Case{"util=40 mem_util=10 mem_total=8000000000 mem_used=1000000000 enc=100 dec=3", "video encoder"}}) {
        INFO(c.expected);
        TempDir dir;
        write_file(dir.file("nvml.script"), "device name=\"Fake RTX\" " + c.device + " power_mw=100000 temp=50\n");
        setenv("SEATMARK_NVML_LIBRARY", SEATMARK_FAKE_NVML, 1);
        setenv("SEATMARK_FAKE_NVML_SCRIPT", dir.file("nvml.script").c_str(), 1);
        core::Plan plan = core::parse_plan("name = \"gpu\"\n[run]\nstop = \"max\"\n[steps]\nlist = [1]\nsettle = \"500ms\"\n"
                                           "window = \"1500ms\"\n[[mix]]\nprofile = \"ci-tiny\"\n", "gpu plan");
        orchestrator::RunOptions o;
        o.db_path = dir.file("run.db");
        o.quiet = true;
        o.session_exe = session_exe();
        o.extra_session_args = {"--synthetic-fps", "30"};
        orchestrator::run_plan(plan, o);
        unsetenv("SEATMARK_NVML_LIBRARY");
        unsetenv("SEATMARK_FAKE_NVML_SCRIPT");
        report::RunAnalysis a = report::analyze(o.db_path);
        const auto& t = headline_attribution(a);
        INFO(t.headline);
        CHECK(binding(t) == c.expected);
        CHECK(t.resources[*t.binding].source == "nvml");
        CHECK(t.headline.find("the binding resource was the " + c.expected + " (100 %") != std::string::npos);
    }
}

TEST_CASE("an adaptive search run: probes grow geometrically, the stored answer is the report's") {
    TempDir dir;
    core::Plan plan = core::parse_plan(
        "name = \"adaptive\"\n[steps]\nsearch = \"adaptive\"\nmin = 1\nmax = 4\nresolution = 1\nrepeats = 2\nmax_repeats = 3\n"
        "settle = \"300ms\"\nwindow = \"1s\"\n[[mix]]\nprofile = \"ci-tiny\"\n"
        "[sla]\np95_interval_ms = 2000\nlow1_fps = 0.5\nlatency_p95_ms = 10000\nstutter_pct = 100\n",
        "adaptive plan");
    orchestrator::RunOptions o;
    o.db_path = dir.file("run.db");
    o.quiet = true;
    o.session_exe = session_exe();
    o.extra_session_args = {"--synthetic-fps", "30"};
    auto out = orchestrator::run_plan(plan, o);
    CHECK(out.status == "finished");
    CHECK(out.max_density == 4);
    store::StoreReader db(o.db_path);
    REQUIRE(db.run().max_density);
    CHECK(*db.run().max_density == 4);
    report::RunAnalysis a = report::analyze(o.db_path);
    REQUIRE(a.search.adaptive);
    std::vector<uint32_t> targets;
    for (const auto& s : a.steps) targets.push_back(s.target);
    CHECK(targets == std::vector<uint32_t>{1, 2, 4});
    CHECK(a.max_density == 4);
    CHECK(a.search.answer.reached_max);
    REQUIRE(a.search.probes.size() == 3);
    for (const auto& p : a.search.probes) {
        CHECK(p.decision.state == core::ProbeState::pass);
        CHECK(p.decision.windows >= 2);
    }
    CHECK(a.search.time.spent_s > 0);
    CHECK(a.search.time.linear_steps == 4);  // 1, 2, 3, 4
    CHECK(a.search.time.linear_s > 0);
    // The knee from the probes (in the order taken): baseline at the fewest sessions probed.
    REQUIRE(a.knee.has_baseline);
    CHECK(a.steps[*a.knee.baseline_step].target == 1);
    const std::string knee = report::headline(a).knee;
    INFO(knee);
    CHECK(knee.find("1-session baseline") != std::string::npos);
}
