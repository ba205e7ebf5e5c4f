#pragma once
// What a person sees of a run: a live status line once a second, a note per
// failed session, and at the end one table row per step with its verdict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/plan.h"

namespace seatmark::orchestrator {

struct StepOutcome;
struct StepDevice;
struct RunOutcome;

struct StatusSnapshot {
    size_t step = 0, steps = 0;
    uint32_t target = 0, alive = 0;
    uint32_t drawing = 0;    // alive sessions that have sent a frame (the rest are still starting)
    std::string phase;
    double phase_left_s = 0;
    // Frames per wall second over the last second (think pauses included), median over the
    // sessions that are drawing: one still starting (settle follows its start) would read 0.
    double fps_median = 0;
    double p95_ms = 0;       // p95 frame interval over the last second, all sessions pooled
    uint32_t passed = 0;     // max density so far
    size_t failed_steps = 0;
    double elapsed_s = 0;
};

// The status line's text. The time left says what it bounds: a step's start has a deadline (its
// sessions may be ready sooner), settle and the window a length.
std::string status_text(const StatusSnapshot& s);

class RunOutput {
public:
    explicit RunOutput(bool quiet);
    void start(const core::Plan& plan, const std::string& db_path);
    void status(const StatusSnapshot& s);
    void step_done(const StepOutcome& o, size_t steps);
    void session_ended(uint32_t id, const std::string& reason, const std::string& detail);
    void note(const std::string& text);

private:
    void clear_line();
    bool quiet_, tty_;
    bool line_open_ = false;
    int64_t last_plain_ns_ = 0;
};

// Where a step's sessions rendered: "'llvmpipe (LLVM 15.0.6, 256 bits)' (software renderer)", or
// with several devices "1 on 'A', 2 on 'B' (software renderer)"; a session that never said is
// "a device it did not report".
std::string describe_devices(const std::vector<StepDevice>& devices);

// The per-step table and the verdict, as printed at the end of `seatmark run`.
std::string format_run_table(const RunOutcome& r, const core::Plan& plan);
nlohmann::json run_json(const RunOutcome& r, const core::Plan& plan);

}  // namespace seatmark::orchestrator
