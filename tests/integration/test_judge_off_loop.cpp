// Issue 16: a closed window is judged on the judge's thread (orchestrator/judge_worker.h), so the
// event loop goes on while the judge reads the window back from the database: sessions' telemetry
// and BYEs are read, the live view answers, and SIGTERM stops the run at once. The judge's frame
// source is the real one (the run's database) behind a gate that holds the read until the test
// lets it go; before the fix the loop itself waited in that read.
#include <doctest/doctest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "core/plan.h"
#include "orchestrator/judge_worker.h"
#include "orchestrator/run_controller.h"
#include "store/store_reader.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

// Holds every read until opened (or interrupted, or a sanity bound passed, so a failing test ends).
struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false, entered = false, interrupted = false;
    void wait_open() {
        std::unique_lock lk(mu);
        entered = true;
        cv.notify_all();
        cv.wait_for(lk, std::chrono::seconds(90), [this] { return open || interrupted; });
    }
    void let_go() {
        std::lock_guard lk(mu);
        open = true;
        cv.notify_all();
    }
    bool wait_entered(double s) {
        std::unique_lock lk(mu);
        return cv.wait_for(lk, std::chrono::duration<double>(s), [this] { return entered; });
    }
};

struct GatedFrames final : orchestrator::SpanFrames {
    std::unique_ptr<orchestrator::SpanFrames> real;
    Gate& gate;
    GatedFrames(const std::string& db, Gate& g) : real(orchestrator::open_span_frames(db)), gate(g) {}
    std::vector<FrameRecord> frames_in(uint32_t s, int64_t t0, int64_t t1) override {
        gate.wait_open();
        return real->frames_in(s, t0, t1);
    }
    void interrupt() override {
        std::lock_guard lk(gate.mu);
        gate.interrupted = true;
        gate.cv.notify_all();
    }
};

// The run's loop, as the live API sees it: a handler posted onto it runs only if it is not stuck.
struct LoopProbe final : orchestrator::LiveObserver {
    std::atomic<boost::asio::io_context*> io{nullptr};
    orchestrator::LiveSource* source = nullptr;
    void started(boost::asio::io_context& i, orchestrator::LiveSource& s) override {
        source = &s;
        io = &i;
    }
    void event(const core::RunEvent&) override {}
    void finished() override { io = nullptr; }
    // The live state, read on the loop; nullopt when the loop did not run the handler in `s`.
    std::optional<core::LiveState> state(double s) {
        auto* i = io.load();
        if (!i) return std::nullopt;
        auto p = std::make_shared<std::promise<core::LiveState>>();
        auto f = p->get_future();
        boost::asio::post(*i, [this, p] { p->set_value(source->live_state()); });
        if (f.wait_for(std::chrono::duration<double>(s)) != std::future_status::ready) return std::nullopt;
        return f.get();
    }
};

orchestrator::RunOptions gated_options(const TempDir& dir, Gate& gate, LoopProbe& probe) {
    orchestrator::RunOptions o;
    o.db_path = dir.file("run.db");
    o.quiet = true;
    o.session_exe = (std::filesystem::path(SEATMARK_BIN).parent_path() / "seatmark-session").string();
    o.extra_session_args = {"--synthetic-fps", "30"};
    o.live = &probe;
    o.span_frames = [&gate](const std::string& db) -> std::unique_ptr<orchestrator::SpanFrames> {
        return std::make_unique<GatedFrames>(db, gate);
    };
    return o;
}

const char* plan_text = "name = \"judge-off-loop\"\n[run]\nheartbeat_timeout = \"5s\"\n[steps]\nlist = [2]\n"
                        "settle = \"500ms\"\nwindow = \"1500ms\"\n[[mix]]\nprofile = \"ci-tiny\"\n"
                        // Lenient: the machine may be loaded; the verdict's figures are not what is tested.
                        "[sla]\np95_interval_ms = 1000\nlow1_fps = 1\nlatency_p95_ms = 1000\nstutter_pct = 100\n";

// Every session said BYE and each frame it sent is stored or counted lost.
void every_frame_accounted(const std::string& db) {
    store::StoreReader r(db);
    const auto sessions = r.sessions();
    CHECK(sessions.size() == 2);
    for (const auto& s : sessions) {
        INFO("session " << s.id);
        REQUIRE(s.frames_sent.has_value());
        CHECK(int64_t(*s.frames_sent) == int64_t(r.frame_count(s.id)) + int64_t(s.frames_lost));
    }
}

// A run whose judge is held at the gate: started by the constructor, which returns once the
// judge began reading its window back (`entered`), or after a sanity bound.
struct GatedRun {
    TempDir dir;
    Gate gate;
    LoopProbe probe;
    const core::Plan plan = core::parse_plan(plan_text, "judge plan");
    const orchestrator::RunOptions o = gated_options(dir, gate, probe);
    orchestrator::RunOutcome r;
    std::thread run{[this] { r = orchestrator::run_plan(plan, o); }};
    const bool entered = gate.wait_entered(120);
    // Lets the judge read and waits for the run's end.
    void finish() {
        gate.let_go();
        if (run.joinable()) run.join();
    }
    ~GatedRun() { finish(); }
};

}  // namespace

TEST_CASE("while the judge reads a window back, the run's loop goes on: the live view answers, telemetry comes in") {
    GatedRun g;
    CHECK(g.entered);
    std::optional<core::LiveState> a, b;
    if (g.entered) {
        a = g.probe.state(30);  // the loop is not the one waiting in the read
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // sessions send once a second
        b = g.probe.state(30);
    }
    g.finish();
    const auto& r = g.r;
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    CHECK(a->phase == "judging");
    CHECK(b->phase == "judging");
    // Sessions' frames are still received while the window waits for its verdict.
    auto received = [](const core::LiveState& st) {
        uint64_t n = 0;
        for (const auto& x : st.sessions) n += x.frames;
        return n;
    };
    CHECK(received(*b) > received(*a));
    CHECK(r.status == "finished");
    REQUIRE(r.steps.size() == 1);
    CHECK(r.steps[0].judged);
    const std::string why = r.steps[0].verdict.reasons.empty() ? "" : r.steps[0].verdict.reasons.front();
    INFO(why);
    CHECK(r.steps[0].verdict.pass);
    CHECK(r.steps[0].verdict.sessions.size() == 2);
    every_frame_accounted(g.o.db_path);
}

TEST_CASE("SIGTERM while the judge reads a window back stops the run at once: sessions say BYE, the run is aborted") {
    GatedRun g;
    CHECK(g.entered);
    bool interrupted = false;
    if (g.entered) {
        ::raise(SIGTERM);  // the run's own signal set takes it (installed before its first step)
        // The loop takes the signal and interrupts the read, which the gate still holds.
        interrupted = wait_until(60, [&] {
            std::lock_guard lk(g.gate.mu);
            return g.gate.interrupted;
        });
    }
    g.finish();
    const auto& r = g.r;
    CHECK(interrupted);
    CHECK(r.status == "aborted");
    CHECK(r.steps.empty());  // its judgement was cut short: no verdict of its own
    CHECK(store::StoreReader(g.o.db_path).effective_status() == store::RunStatus::aborted);
    every_frame_accounted(g.o.db_path);
}
