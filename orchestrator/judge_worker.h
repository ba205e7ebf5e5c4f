#pragma once
// The judge of closed spans, on a thread of its own (issue 16). Judging a window commits the
// writer's queue and reads every member's frames back from the run's database: for a window of
// tens of millions of frames that takes tens of seconds, and the event loop must go on meanwhile
// (sessions stop sending after 10 s unread, the live API and signals must be served). The worker
// is given a copy of everything it reads (core::StepJudge's callbacks over snapshots), reads the
// frames through a connection nobody else uses (SQLite connections are not shared across
// threads), and hands the verdict to a callback that the controller posts back to its loop.
// The rules are core::judge_span's, as the report's: the live verdict equals the report's.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/frame_record.h"
#include "core/step_rules.h"

namespace seatmark::orchestrator {

// Where the judge reads a span's frames: the run's database (open_span_frames), or a test's
// wrapper around it (RunOptions::span_frames). Used by the judge's thread only.
class SpanFrames {
public:
    virtual ~SpanFrames() = default;
    // Frames of `session` that began in [t0, t1), by seq. Throws on a read failure.
    virtual std::vector<FrameRecord> frames_in(uint32_t session, int64_t t0, int64_t t1) = 0;
    // Called from the event loop when the run stops while a read is on: a read that can be cut
    // short should be (the judge stops asking after the current member anyway).
    virtual void interrupt() {}
};

// A read-only connection on the run's database (store::StoreReader).
std::unique_ptr<SpanFrames> open_span_frames(const std::string& db_path);

struct JudgeJob {
    core::StepJudge judge;  // callbacks over copies only: no reference into the loop's state
    std::vector<core::SessionSpan> spans;
    int64_t t0 = 0, t1 = 0;
};

struct JudgeResult {
    core::StepVerdict verdict;
    core::GpuMemoryCheck gpu;
    std::string read_error;  // the commit or a read failed: the span could not be judged
    bool cancelled = false;  // the run stopped while judging: the verdict is incomplete
    int64_t took_ns = 0;     // the commit, the read-back and the rules
};

class JudgeWorker {
public:
    // `commit` waits until the writer's queue is in the database (store::StoreWriter::flush,
    // which is thread-safe); `frames` is read from the worker's thread only.
    JudgeWorker(std::function<void()> commit, SpanFrames& frames);
    ~JudgeWorker();  // cancels a judgement on, and joins the thread
    JudgeWorker(const JudgeWorker&) = delete;
    JudgeWorker& operator=(const JudgeWorker&) = delete;

    // Judges on the worker's thread and calls `done` there with the result. One at a time:
    // throws std::logic_error while the previous one has not called its `done`.
    void start(JudgeJob job, std::function<void(JudgeResult)> done);
    // The judgement on stops reading (its result says cancelled); no-op when idle.
    void cancel();
    bool busy() const { return busy_.load(); }

private:
    void loop();
    JudgeResult judge(const JudgeJob& job);

    std::function<void()> commit_;
    SpanFrames& frames_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::optional<JudgeJob> job_;
    std::function<void(JudgeResult)> done_;
    bool quit_ = false;
    std::atomic<bool> busy_{false}, cancel_{false};
    std::thread thread_;  // last: started once the rest is set up
};

}  // namespace seatmark::orchestrator
