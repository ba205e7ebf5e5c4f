// What `seatmark run` refuses before its first session starts (core/preflight.h), on this host's
// real Vulkan devices (lavapipe here) asked through `seatmark-session --preflight`: README's
// example plan (allow_software = false) and profiles beyond the device's limits.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"
#include "core/plan.h"
#include "orchestrator/run_controller.h"
#include "orchestrator/run_output.h"
#include "store/store_reader.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {

std::string session_exe() { return (fs::path(SEATMARK_BIN).parent_path() / "seatmark-session").string(); }

// A plan of one step of one session of `profile`, run.db in `dir` (lavapipe allowed: the
// profile's limits are the question).
std::string one_step(const std::string& profile) {
    return "name = \"pre\"\n[run]\nallow_software = true\n[steps]\nlist = [1]\nsettle = \"0s\"\nwindow = \"1s\"\n[[mix]]\nprofile = \"" + profile + "\"\n";
}

std::string profile(const std::string& render) {
    return "name = \"big\"\n[render]\n" + render + "\n[[script.segment]]\nkind = \"orbit\"\nduration = \"1s\"\n";
}

}  // namespace

TEST_CASE("seatmark-session --preflight names the device it would render on and its limits") {
    auto r = run_process({session_exe(), "--preflight"}, 60);
    INFO(r.out, r.err);
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["renders"] == true);
    REQUIRE(j.contains("device"));
    CHECK(j["device"]["max_image_dimension_2d"].get<uint32_t>() >= 4096);
    CHECK(j["device"]["max_msaa"].get<uint32_t>() >= 1);
    auto syn = run_process({session_exe(), "--preflight", "--synthetic-fps", "30"}, 60);
    CHECK(nlohmann::json::parse(syn.out)["renders"] == false);
    auto none = run_process({session_exe(), "--preflight", "--device", "99"}, 60);
    CHECK(nlohmann::json::parse(none.out).contains("error"));
}

TEST_CASE("README's example plan on a host with only a CPU renderer is refused at once, with what to do") {
    auto probe = nlohmann::json::parse(run_process({session_exe(), "--preflight"}, 60).out);
    REQUIRE(probe.contains("device"));
    if (!probe["device"]["software"].get<bool>()) {
        MESSAGE("SEATMARK-SKIPPED: this host renders on a GPU; the refusal needs a CPU renderer");
        return;
    }
    TempDir dir;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run_process(seatmark_argv({"run", std::string(SEATMARK_SOURCE_DIR) + "/workloads/plans/example.toml", "--db",
                                        dir.file("x.db"), "--listen", "off"}),
                         60);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("example.toml: run.allow_software = false") != std::string::npos);
    CHECK(r.err.find("software renderer") != std::string::npos);
    CHECK(r.err.find("allow_software = true") != std::string::npos);
    CHECK(r.err.find("device = \"INDEX or part of its name\"") != std::string::npos);
    CHECK(r.err.find("Nothing was started") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("x.db")));
    CHECK(s < 30);  // sanity: the plan's settle and windows alone are 135 s a step
    MESSAGE("refused in " << s << " s");
}

TEST_CASE("a plan that does not set allow_software is refused on a CPU renderer, saying it is the default and how to allow it") {
    auto probe = nlohmann::json::parse(run_process({session_exe(), "--preflight"}, 60).out);
    REQUIRE(probe.contains("device"));
    if (!probe["device"]["software"].get<bool>()) {
        MESSAGE("SEATMARK-SKIPPED: this host renders on a GPU; the refusal needs a CPU renderer");
        return;
    }
    const std::string device = probe["device"]["name"];
    TempDir dir;
    write_file(dir.file("plain.toml"), "name = \"plain\"\n[steps]\nlist = [1]\nsettle = \"0s\"\nwindow = \"1s\"\n"
                                       "[[mix]]\nprofile = \"ci-tiny\"\n");
    auto r = run_process(seatmark_argv({"run", dir.file("plain.toml"), "--db", dir.file("x.db"), "--listen", "off"}), 60);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("plain.toml: [run] does not set allow_software (false unless set), and sessions would render on '" +
                     device) != std::string::npos);
    CHECK(r.err.find("set allow_software = true in [run]") != std::string::npos);
    CHECK(r.err.find("Nothing was started") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("x.db")));
    // The same plan saying it means the CPU renderer runs, and names the device of each step's
    // sessions: the one the preflight probe named, as the sessions said (the database's).
    write_file(dir.file("cpu.toml"), "name = \"cpu\"\n[run]\nallow_software = true\nstop = \"max\"\n[steps]\nlist = [1, 2]\nsettle = \"0s\"\n"
                                     "window = \"1s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    auto ok = run_process(seatmark_argv({"run", dir.file("cpu.toml"), "--db", dir.file("y.db"), "--listen", "off"}), 120);
    INFO(ok.out);
    INFO(ok.err);
    REQUIRE(ok.exit_code == 0);
    store::StoreReader db(dir.file("y.db"));
    REQUIRE(db.sessions().size() == 2);
    for (const auto& x : db.sessions()) {
        CHECK(x.device.device_name == device);
        CHECK(x.device.software);
    }
    const std::string on = "'" + device + "' (software renderer)";
    CHECK(ok.out.find("rendered on (as the sessions said):\nstep 1: " + on + "\nstep 2: " + on + "\n") != std::string::npos);
    CHECK(ok.err.find("step 1/2: 1 sessions on " + on + ", FPS") != std::string::npos);
    CHECK(ok.err.find("step 2/2: 2 sessions on " + on + ", FPS") != std::string::npos);
}

TEST_CASE("profiles beyond the device's image size or sample counts are refused before any session starts") {
    auto dev = nlohmann::json::parse(run_process({session_exe(), "--preflight"}, 60).out)["device"];
    const uint32_t side = dev["max_image_dimension_2d"], msaa = dev["max_msaa"];
    if (side >= 32768 || msaa >= 64) {
        MESSAGE("SEATMARK-SKIPPED: this device renders 32768 pixels a side and 64x MSAA");
        return;
    }
    TempDir dir;
    write_file(dir.file("wide.toml"), profile("width = 32768\nheight = 32768\nmsaa = 1"));
    write_file(dir.file("msaa.toml"), profile("width = 64\nheight = 64\nmsaa = 64"));
    write_file(dir.file("wide-plan.toml"), one_step("wide.toml"));
    write_file(dir.file("msaa-plan.toml"), one_step("msaa.toml"));
    auto w = run_process(seatmark_argv({"run", dir.file("wide-plan.toml"), "--db", dir.file("w.db"), "--listen", "off"}), 60);
    INFO(w.err);
    CHECK(w.exit_code == 2);
    CHECK(w.err.find("profile 'big' renders 32768x32768") != std::string::npos);
    CHECK(w.err.find("at most " + std::to_string(side) + " pixels a side (maxImageDimension2D)") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("w.db")));
    auto m = run_process(seatmark_argv({"run", dir.file("msaa-plan.toml"), "--db", dir.file("m.db"), "--listen", "off"}), 60);
    INFO(m.err);
    CHECK(m.exit_code == 2);
    CHECK(m.err.find("asks 64x MSAA") != std::string::npos);
    CHECK(m.err.find("set [render] msaa = " + std::to_string(msaa)) != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("m.db")));
}

TEST_CASE("a step already decided ends at once: a software renderer the preflight could not see spends no settle or window time") {
    TempDir dir;
    // The session executable behind a wrapper that gives the preflight no answer (as a probe that
    // cannot run): the run goes on unchecked, and lavapipe fails every session at its HELLO.
    // Planned: 2 x (15 s settle + 20 s window); a decided step ends as soon as its failure is known.
    write_file(dir.file("session.sh"), "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --preflight ] && exit 1; done\nexec '" +
                                           session_exe() + "' \"$@\"\n");
    fs::permissions(dir.file("session.sh"), fs::perms::owner_all);
    // The plan does not set allow_software: the default refuses a CPU renderer at the session too.
    auto plan = core::parse_plan("name = \"decided\"\n[run]\nheartbeat_timeout = \"5s\"\nstop = \"max\"\n"
                                 "[steps]\nlist = [1, 2]\nsettle = \"15s\"\nwindow = \"20s\"\n[[mix]]\nprofile = \"ci-tiny\"\n",
                                 "decided.toml");
    orchestrator::RunOptions o;
    o.db_path = dir.file("run.db");
    o.quiet = true;
    o.session_exe = dir.file("session.sh");
    const int64_t t0 = now_ns();
    auto r = orchestrator::run_plan(plan, o);
    const double took_s = double(now_ns() - t0) * 1e-9;
    CHECK(took_s < 50);  // sanity bound: far below the 70 s the plan would have taken
    store::StoreReader db(dir.file("run.db"));
    auto steps = db.steps();
    REQUIRE(steps.size() == 2);  // stop = "max": the second step runs (and is decided) too
    for (const auto& s : steps) {
        CHECK(s.verdict.value_or("") == "fail");
        CHECK(s.detail.find("software-fallback") != std::string::npos);
        REQUIRE(s.window_start_ns.has_value());
        CHECK(*s.window_start_ns == s.started_ns);  // judged from the step's start
    }
    for (const auto& x : db.sessions()) CHECK(x.end_reason == store::SessionEnd::software_fallback);
    int decided = 0;
    for (const auto& e : db.events()) decided += e.kind == "step-decided";
    CHECK(decided == 2);
    // Figures with nothing measured are n/a in the summary, never "0.0".
    for (const auto& v : db.verdicts())
        if (v.frames == 0) {
            CHECK(std::isnan(v.p95_worst_ms));
            CHECK(std::isnan(v.fps_median));
        }
    CHECK(orchestrator::format_run_table(r, plan).find("p95 0.0") == std::string::npos);
}
