// One source of truth for verdicts: real `seatmark run`s on real Vulkan (lavapipe on CI),
// and for every step and window the verdict the orchestrator stored (verdicts,
// verdict_reasons, runs.max_density) must equal what the report recomputes from the stored
// frames with the same rules (core/step_rules.h): pass/fail, every figure, every reason, max
// density. Runs: a plain ramp with repeat windows; one where a session is killed inside a
// measurement window (a failure that counts in that window); one with slow frames, so frames
// straddle every window edge and arrive well after it.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <string>
#include <thread>

#include "common/version.h"
#include "report/analysis.h"
#include "store/store_reader.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

std::string plan(const std::string& steps, const std::string& profile, int repeats, const std::string& window,
                 const std::string& sla = "") {
    return "name = \"consistency\"\n[run]\nallow_software = true\nheartbeat_timeout = \"8s\"\nstop = \"max\"\n[steps]\nlist = [" + steps +
           "]\nsettle = \"1s\"\nwindow = \"" + window + "\"\nrepeats = " + std::to_string(repeats) +
           "\n[[mix]]\nprofile = \"" + profile + "\"\n" + sla;
}

// Every stored verdict equals the recomputed one; every measured step has one.
void require_consistent(const std::string& db) {
    report::RunAnalysis a = report::analyze(db);
    REQUIRE(a.finished());
    REQUIRE_FALSE(a.steps.empty());
    for (const auto& s : a.steps) {
        INFO("step " << s.idx + 1 << " (" << s.target << " sessions)");
        REQUIRE(s.measured);
        REQUIRE(s.stored_verdict.has_value());
        for (const auto& w : s.windows) {
            INFO("window " << w.repeat + 1);
            REQUIRE(w.stored_verdict.has_value());
        }
        std::string diffs;
        for (const auto& d : s.disagreements) diffs += d + "\n";
        INFO(diffs);
        CHECK(s.agrees);
        CHECK(s.disagreements.empty());
        CHECK(s.stored_verdict->reasons == s.verdict.reasons);
        CHECK(s.stored_verdict->pass == s.verdict.pass);
    }
    REQUIRE(a.stored_max_density.has_value());
    CHECK(*a.stored_max_density == int64_t(a.max_density));
}

}  // namespace

TEST_CASE("stored and recomputed verdicts agree: a ramp with repeat windows") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("1, 2", "ci-tiny", 2, "1500ms"));
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}), 240);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    require_consistent(dir.file("run.db"));
    // The host row names what the sessions rendered on (the first HELLO) and what was asked.
    store::StoreReader db(dir.file("run.db"));
    REQUIRE(db.hosts().size() == 1);
    const auto h = db.hosts()[0];
    CHECK(h.gpu == db.sessions()[0].device.device_name);
    CHECK_FALSE(h.gpu.empty());
    CHECK(h.driver.find(db.sessions()[0].device.driver_name) == 0);
    CHECK(h.vulkan_device == "auto");
    CHECK(db.run().tool_version == std::string(version_string));  // common/version.h, as --version prints
}

TEST_CASE("stored and recomputed verdicts agree: a session killed inside a measurement window") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("2, 3", "ci-tiny", 1, "3s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    // The first window of the first step has begun (its steps row appears when it starts).
    int64_t victim = 0;
    // A run that ended before its window (a session that could not start, say) fails here with
    // what it printed, instead of waiting out the 120 s.
    const bool seen = wait_until(120, [&] {
        if (!run.running()) return true;
        try {
            store::StoreReader db(dir.file("run.db"));
            bool measuring = false;
            for (const auto& st : db.steps()) measuring |= st.idx == 0;
            if (!measuring) return false;
            for (const auto& s : db.sessions())
                if (s.id == 0 && s.pid > 0) victim = s.pid;
            return victim > 0;
        } catch (...) {
            return false;
        }
    });
    if (victim == 0) {
        auto early = run.wait(30);
        INFO("the run ended before its first window: exit " << early.exit_code << "\n" << early.out << early.err);
        REQUIRE(seen);
        REQUIRE(victim > 0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // inside the 3 s window
    signal_process(victim, SIGKILL);
    auto r = run.wait(240);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    require_consistent(dir.file("run.db"));
    // The kill really failed a session inside the first step, and that step says so.
    report::RunAnalysis a = report::analyze(dir.file("run.db"));
    CHECK(a.steps[0].stored_verdict->failures == 1);
    CHECK_FALSE(a.steps[0].verdict.pass);
    CHECK(a.max_density == 0);
}

TEST_CASE("stored and recomputed verdicts agree: slow frames straddle every window edge") {
    TempDir dir;
    // A heavy scene, uncapped and without think pauses: a frame takes tens of ms on lavapipe,
    // so one is in flight at every window edge and its record arrives well after it.
    write_file(dir.file("slow.toml"),
               "name = \"slow\"\n[scene]\nseed = 3\ntriangles = 400000\n[render]\nwidth = 320\nheight = 240\n"
               "msaa = 1\nframe_cap_hz = 0\n[script]\nloop = true\n[[script.segment]]\nkind = \"orbit\"\n"
               "duration = \"1s\"\nrate = 30\n");
    write_file(dir.file("plan.toml"), plan("1, 2", "slow.toml", 2, "2s", "[sla]\np95_interval_ms = 2000\n"));
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}), 300);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    require_consistent(dir.file("run.db"));
    // Frames did straddle the window edges: a frame began before a window's end and the
    // session's next frame after it, with a long interval between them.
    store::StoreReader db(dir.file("run.db"));
    int straddling = 0;
    for (const auto& st : db.steps()) {
        if (!st.window_end_ns) continue;
        for (const auto& s : db.sessions()) {
            auto f = db.frames(s.id);
            for (size_t i = 1; i < f.size(); ++i)
                if (f[i - 1].t_begin_ns < *st.window_end_ns && f[i].t_begin_ns >= *st.window_end_ns &&
                    f[i].t_begin_ns - f[i - 1].t_begin_ns > 10'000'000)
                    ++straddling;
        }
    }
    CHECK(straddling >= 4);
}
