// The judge's thread (orchestrator/judge_worker.h).
#include "orchestrator/judge_worker.h"

#include <stdexcept>

#include "common/clock.h"
#include "store/store_reader.h"

namespace seatmark::orchestrator {

namespace {

class StoreFrames final : public SpanFrames {
public:
    explicit StoreFrames(const std::string& path) : reader_(path) {}
    std::vector<FrameRecord> frames_in(uint32_t session, int64_t t0, int64_t t1) override {
        return reader_.frames_in(static_cast<int>(session), t0, t1);
    }

private:
    store::StoreReader reader_;
};

}  // namespace

std::unique_ptr<SpanFrames> open_span_frames(const std::string& db_path) {
    return std::make_unique<StoreFrames>(db_path);
}

JudgeWorker::JudgeWorker(std::function<void()> commit, SpanFrames& frames)
    : commit_(std::move(commit)), frames_(frames), thread_([this] { loop(); }) {}

JudgeWorker::~JudgeWorker() {
    {
        std::lock_guard lk(mu_);
        quit_ = true;
    }
    cancel();
    cv_.notify_all();
    thread_.join();
}

void JudgeWorker::start(JudgeJob job, std::function<void(JudgeResult)> done) {
    std::lock_guard lk(mu_);
    if (busy_.load()) throw std::logic_error("the judge is still judging the previous span");
    busy_ = true;
    cancel_ = false;
    job_ = std::move(job);
    done_ = std::move(done);
    cv_.notify_all();
}

void JudgeWorker::cancel() {
    if (!busy_.load()) return;
    cancel_ = true;
    frames_.interrupt();
}

void JudgeWorker::loop() {
    for (;;) {
        JudgeJob job;
        std::function<void(JudgeResult)> done;
        {
            std::unique_lock lk(mu_);
            cv_.wait(lk, [this] { return quit_ || job_.has_value(); });
            if (quit_) return;
            job = std::move(*job_);
            job_.reset();
            done = std::move(done_);
        }
        JudgeResult r = judge(job);
        busy_ = false;  // before `done`: its receiver may start the next one at once
        done(std::move(r));
    }
}

JudgeResult JudgeWorker::judge(const JudgeJob& job) {
    const int64_t t0 = now_ns();
    JudgeResult r;
    // Every frame received before the span was handed over is in the writer's queue (queued on
    // arrival): once it is committed, the database holds every frame the report will judge.
    try {
        commit_();
    } catch (const std::exception& e) {
        r.read_error = e.what();
    }
    core::StepJudge j = job.judge;
    j.frames = [this, &r](uint32_t id, int64_t a, int64_t b) -> std::vector<FrameRecord> {
        if (cancel_.load()) r.cancelled = true;
        if (r.cancelled || !r.read_error.empty()) return {};
        try {
            return frames_.frames_in(id, a, b);
        } catch (const std::exception& e) {
            if (cancel_.load())
                r.cancelled = true;  // an interrupted read
            else
                r.read_error = e.what();
            return {};
        }
    };
    r.verdict = core::judge_span(j, job.spans, job.t0, job.t1, &r.gpu);
    if (cancel_.load()) r.cancelled = true;
    r.took_ns = now_ns() - t0;
    return r;
}

}  // namespace seatmark::orchestrator
