// The judge's thread (orchestrator/judge_worker.h) with a frame source in memory: its verdict is
// core::judge_span's over the same frames (the report's rule), the caller is free while it reads,
// it commits before it reads, and a cancel or a failed commit says so in the result.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/plan.h"
#include "core/step_rules.h"
#include "orchestrator/judge_worker.h"

using namespace seatmark;
using namespace seatmark::orchestrator;

namespace {

constexpr int64_t ms = 1'000'000;

// 30 FPS frames per session over [0, 2 s); reads wait while `hold` (bounded, so a failure ends).
struct MemoryFrames final : SpanFrames {
    std::mutex mu;
    std::condition_variable cv;
    bool hold = false, interrupted = false;
    int reads = 0;
    std::vector<FrameRecord> frames_in(uint32_t, int64_t t0, int64_t t1) override {
        std::unique_lock lk(mu);
        ++reads;
        cv.notify_all();
        cv.wait_for(lk, std::chrono::seconds(60), [this] { return !hold || interrupted; });
        return frames(t0, t1);
    }
    void interrupt() override {
        std::lock_guard lk(mu);
        interrupted = true;
        cv.notify_all();
    }
    static std::vector<FrameRecord> frames(int64_t t0, int64_t t1) {
        std::vector<FrameRecord> out;
        for (uint64_t i = 0; i < 60; ++i) {
            FrameRecord f;
            f.seq = i;
            f.t_begin_ns = int64_t(i) * 33 * ms;
            f.t_present_ns = f.t_begin_ns + 5 * ms;
            f.interval_ns = i ? 33 * ms : -1;
            f.begin_interval_ns = f.interval_ns;
            if (f.t_begin_ns >= t0 && f.t_begin_ns < t1) out.push_back(f);
        }
        return out;
    }
};

JudgeJob job_of(const core::Plan& plan) {
    JudgeJob job;
    job.judge.target = 2;
    job.judge.default_sla = plan.default_sla;
    job.judge.sla_for = [&plan](const std::string& p) -> const Sla& { return plan.sla_for(p); };
    job.spans = {{0, "ci-tiny", 0, std::nullopt, "", NAN}, {1, "ci-tiny", 0, std::nullopt, "", NAN}};
    job.t0 = 0;
    job.t1 = 2000 * ms;
    return job;
}

}  // namespace

TEST_CASE("judge worker: its verdict is judge_span's over the same frames, and the caller is free meanwhile") {
    const core::Plan plan = core::parse_plan("name = \"w\"\n[steps]\nlist = [2]\n[[mix]]\nprofile = \"ci-tiny\"\n", "w");
    MemoryFrames frames;
    frames.hold = true;
    int commits = 0, reads_at_commit = -1;
    JudgeWorker w(
        [&] {
            ++commits;
            std::lock_guard lk(frames.mu);
            reads_at_commit = frames.reads;
        },
        frames);
    std::promise<JudgeResult> got;
    const JudgeJob job = job_of(plan);
    w.start(job, [&](JudgeResult r) { got.set_value(std::move(r)); });
    {
        std::unique_lock lk(frames.mu);
        REQUIRE(frames.cv.wait_for(lk, std::chrono::seconds(60), [&] { return frames.reads > 0; }));
    }
    // The worker waits in its read; this thread goes on, and a second judgement is refused.
    CHECK(w.busy());
    CHECK_THROWS_AS(w.start(job, [](JudgeResult) {}), std::logic_error);
    {
        std::lock_guard lk(frames.mu);
        frames.hold = false;
        frames.cv.notify_all();
    }
    auto f = got.get_future();
    REQUIRE(f.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
    const JudgeResult r = f.get();
    CHECK(commits == 1);
    CHECK(reads_at_commit == 0);  // committed before the first read
    CHECK(r.read_error.empty());
    CHECK_FALSE(r.cancelled);
    core::StepJudge direct = job.judge;
    direct.frames = [](uint32_t, int64_t a, int64_t b) { return MemoryFrames::frames(a, b); };
    const core::StepVerdict v = core::judge_span(direct, job.spans, job.t0, job.t1);
    CHECK(r.verdict.pass == v.pass);
    CHECK(r.verdict.reasons == v.reasons);
    REQUIRE(r.verdict.sessions.size() == 2);
    CHECK(r.verdict.sessions.size() == v.sessions.size());
    CHECK(r.verdict.fps_median == doctest::Approx(v.fps_median));
    CHECK(r.verdict.p95_worst_ms == doctest::Approx(v.p95_worst_ms));
    CHECK_FALSE(w.busy());
}

TEST_CASE("judge worker: a cancel interrupts the read and says so, a failed commit is the result's read error") {
    const core::Plan plan = core::parse_plan("name = \"w\"\n[steps]\nlist = [2]\n[[mix]]\nprofile = \"ci-tiny\"\n", "w");
    SUBCASE("cancel") {
        MemoryFrames frames;
        frames.hold = true;
        JudgeWorker w([] {}, frames);
        std::promise<JudgeResult> got;
        w.start(job_of(plan), [&](JudgeResult r) { got.set_value(std::move(r)); });
        {
            std::unique_lock lk(frames.mu);
            REQUIRE(frames.cv.wait_for(lk, std::chrono::seconds(60), [&] { return frames.reads > 0; }));
        }
        w.cancel();
        auto f = got.get_future();
        REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        CHECK(f.get().cancelled);
        std::lock_guard lk(frames.mu);
        CHECK(frames.interrupted);
        CHECK(frames.reads == 1);  // the second member was not read
    }
    SUBCASE("a failed commit") {
        MemoryFrames frames;
        JudgeWorker w([] { throw std::runtime_error("run.db: committing: database or disk is full"); }, frames);
        std::promise<JudgeResult> got;
        w.start(job_of(plan), [&](JudgeResult r) { got.set_value(std::move(r)); });
        auto f = got.get_future();
        REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        const JudgeResult r = f.get();
        CHECK(r.read_error == "run.db: committing: database or disk is full");
        CHECK_FALSE(r.cancelled);
        CHECK(frames.reads == 0);
    }
    SUBCASE("destroyed while judging") {
        MemoryFrames frames;
        frames.hold = true;
        bool called = false;
        {
            JudgeWorker w([] {}, frames);
            w.start(job_of(plan), [&](JudgeResult r) { called = r.cancelled; });
            std::unique_lock lk(frames.mu);
            REQUIRE(frames.cv.wait_for(lk, std::chrono::seconds(60), [&] { return frames.reads > 0; }));
        }  // cancels and joins
        CHECK(called);
    }
}
