#pragma once
// The rules that turn a step's sessions and frames into its verdict, in one place: the
// orchestrator judges with them live, the report recomputes with them from the database,
// and tests/report/test_verdict_consistency.cpp requires both to agree to the bit.
//
// Membership, decided at the end of the judged span [t0, t1): a session is judged when it
// started before t1 and either was still running at t1, or failed inside the step before
// t1 (step start <= ended < t1). A failure counts in the span it happened in; a session
// that ended without failing (ok, killed) before t1 is not judged; what happens after t1
// does not change the span's verdict. Frames: those that began in [t0, t1).
//
// A step: each measurement window judged on its own, and the step pooled over all its
// windows (first window start .. last window end), which also fails when any window
// failed. The GPU memory bound applies to every span; when GPU memory reached it, that is
// the first reason (the device ran out: the most telling one).
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "core/gpu_memory_check.h"
#include "core/sla.h"
#include "core/verdict.h"

namespace seatmark::core {

// A session as the membership rule sees it.
struct SessionSpan {
    uint32_t id = 0;
    std::string profile;             // the profile's name (the SLA key)
    int64_t started_ns = 0;
    std::optional<int64_t> ended_ns;  // when it stopped running (failed, exited); nullopt: running
    std::string failure;             // "" unless it ended in failure: the end reason ("crash", "hang", ...)
    double model_open_ms = NAN;      // its model open time once reported (core/verdict.h SessionWindow)
};

struct Member {
    const SessionSpan* session = nullptr;
    std::string failure;  // "" when it counts as running in the span, else its end reason
};

std::vector<Member> span_members(std::span<const SessionSpan> sessions, int64_t step_start_ns, int64_t t1_ns);

// When a failure happened, as membership counts it (SessionSpan::ended_ns, sessions.ended_ns):
// a hang when the session fell silent, its last sign of life (`last_life_ns`: its newest frame's
// begin or heartbeat stamp, INT64_MIN for none), since the silence is the failure and a heartbeat
// timeout passes before it can be told from a slow second; any other failure when it was seen
// (`seen_ns`). Before, a session frozen inside a window was declared hung after the window
// closed, so it was judged as running, on the frames it rendered before it froze, and the
// window passed. Never before the session started nor after it was seen.
int64_t failure_time(bool hang, int64_t seen_ns, int64_t started_ns, int64_t last_life_ns);

// What judging a span needs from its caller.
struct StepJudge {
    uint32_t target = 0;                // sessions the step runs with
    int64_t step_start_ns = 0;
    Sla default_sla;                    // failures allowed; the GPU memory bound without sessions
    std::function<const Sla&(const std::string& profile)> sla_for;
    // Frames of a session that began in [t0, t1), by begin time. Asked once per member, and
    // let go before the next member's: a span is judged with one session's frames in memory
    // (the orchestrator reads them from the run's database, the report from its scan).
    std::function<std::vector<FrameRecord>(uint32_t id, int64_t t0, int64_t t1)> frames;
    // What a launcher saw of a session (core/endpoint.h); empty or nullptr: not launched.
    std::function<const EndpointSeries*(uint32_t id)> endpoint;
    // GPU memory over [t0, t1) against a bound; empty: no GPU memory sampling at all.
    std::function<GpuMemoryCheck(int64_t t0, int64_t t1, double limit_pct)> gpu_memory;
    // Why the step could not get its sessions (join mode: "27 of 30 sessions joined within
    // 5 min"; stored as steps.shortfall); "" when it could. A shortfall fails every span of the
    // step, as its first reason.
    std::string shortfall;
};

// Judges [t0, t1): members, their frames, the SLA, the GPU memory bound. `gpu_check`, when
// given, receives the bound's check (checked or why not).
StepVerdict judge_span(const StepJudge& j, std::span<const SessionSpan> sessions, int64_t t0, int64_t t1,
                       GpuMemoryCheck* gpu_check = nullptr);

// The GPU memory bound of a span: the strictest among its judged sessions (memory is the
// device's, shared by all), the default SLA's without sessions.
double gpu_memory_limit(const StepVerdict& v, const std::function<const Sla&(const std::string&)>& sla_for,
                        const Sla& default_sla);

// Applies a GPU memory check to a verdict: a reached bound fails it, as its first reason.
void apply_gpu_memory(StepVerdict& v, const GpuMemoryCheck& c);

// The step pooled over its windows also fails when one of them failed.
void fold_windows(StepVerdict& pooled, std::span<const StepVerdict> windows);

// A step whose window(s) did not all close before the run ended.
void mark_not_measured(StepVerdict& v, bool any_window_closed);

// Max density: the last step such that it and every step below it was judged and passed.
struct StepPass {
    uint32_t target = 0;
    bool pass = false;  // judged and passed
};
struct MaxDensity {
    uint32_t sessions = 0;        // 0: no passing step
    std::optional<size_t> step;   // its index
};
MaxDensity max_density(std::span<const StepPass> steps_in_ramp_order);

// The VSImax-style knee: the fewest sessions whose step's p95 frame interval (median over
// sessions) exceeds the baseline's by the plan's margin; the baseline is the step with the fewest
// sessions (the first measured one among equals). In a linear ramp that is "the first step above
// the first step"; an adaptive search's probes come in any order, and the knee then lies between
// the most sessions probed below the threshold and this count, which the report says.
struct Knee {
    bool has_baseline = false;
    double baseline_ms = 0;      // p95 (median over sessions) of the baseline step
    std::optional<size_t> baseline_step;
    std::optional<uint32_t> below;  // the most sessions of a step at or below the threshold under the knee
    double margin_pct = 25;      // from the plan
    double threshold_ms = 0;     // baseline x (1 + margin/100)
    std::optional<size_t> step;  // index of the knee's step
};
// Per step, in the order taken: its session count and p95_median_ms (NaN where not measured).
Knee find_knee(std::span<const uint32_t> sessions, std::span<const double> p95_median_ms, double margin_pct);

}  // namespace seatmark::core
