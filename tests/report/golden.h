#pragma once
// Golden run databases for the report tests, written with the real StoreWriter, with frames
// crafted so that every figure is known by hand.
//
// Every step lasts 20 s: settle [0, 5 s), measurement [5 s, 15 s) split evenly into the
// step's windows, tail [15 s, 20 s). Within a region every frame has the same interval I and
// frames begin at region_start + j * I, so per-session FPS is exactly 1000 / I and every
// percentile of the frame interval is exactly I (a step whose windows differ pools them).
// Sessions are started as the orchestrator starts them: at each step, enough new ones to
// bring the live count to the step's target, ids from 0.
#include <cstdint>
#include <string>
#include <vector>

#include "store/records.h"

namespace seatmark::test::golden {

struct Step {
    uint32_t target = 1;
    std::vector<double> window_interval_ms;  // one entry per measurement window
    std::string stored_verdict = "pass";     // what the "orchestrator" recorded
};

struct Crash {
    int session = 0;
    int step = 0;         // 0-based step index
    double at_s = 8;      // seconds after the step began
    std::string reason = "crash";
};

struct Spec {
    std::string plan_text;
    std::string host = "golden-host";
    std::vector<Step> steps;
    std::vector<Crash> crashes;
    bool finish = true;   // false: the writer "dies" (child process exits without finishing)
    bool software = true; // sessions report llvmpipe
    double latency_ms = 30;  // every 10th frame carries this interaction latency
    double host_cpu_per_session_pct = 10;  // host-wide host_cpu_pct = this x the step's target
    // One host's database of a pool run (merged by seatmark merge, which adds the hosts' step
    // targets up): its rank, the pool's id, the other hosts' rows as this host recorded them.
    std::optional<int> rank;
    std::string pool_id;
    std::vector<store::HostInfo> others;
    store::RunStatus end_status = store::RunStatus::finished;
};

constexpr double step_s = 20, settle_s = 5, measure_s = 10;
constexpr int64_t t0_ns = 1'000'000'000'000;  // monotonic time of the run's start

// The plan of the crafted run: steps 1..8, failures allowed 1, knee margin 25 %.
std::string plan_text();
// The crafted run of the report tests:
//   intervals (ms) 16 | 16 then 18 (two windows) | 19 | 22 | 25 | 30 | 40 | 45 for 1..8 sessions,
//   session 2 crashes 8 s into step 4 (failures allowed 1).
// Known answers: max density 6 (step 7's p95 40 ms > 33.3 ms), knee at 4 sessions
// (baseline 16 ms, threshold 20 ms, 22 > 20), step 2's window FPS medians 62.5 and 55.5556.
Spec crafted();

// Writes the database (in a child process when !spec.finish, which then exits without
// finishing, like a killed orchestrator). Returns the number of frames written.
uint64_t write(const std::string& path, const Spec& spec);

}  // namespace seatmark::test::golden
