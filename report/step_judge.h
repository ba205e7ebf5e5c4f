#pragma once
// Judges every step of a run from its frames with core's rules (core/step_rules.h), the
// same the orchestrator judged it with live: each measurement window on its own, then the
// step pooled over all its windows, failing also when any window failed.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "core/sla.h"
#include "core/step_rules.h"
#include "store/records.h"
#include "core/gpu_memory_check.h"
#include "report/analysis.h"

namespace seatmark::report {

using FrameMap = std::map<int, std::vector<FrameRecord>>;  // session id -> frames by time

struct JudgeInputs {
    const std::vector<store::SessionRow>& sessions;
    const FrameMap& frames;
    std::function<const Sla&(const std::string&)> sla_for;  // a profile's SLA
    Sla default_sla;                                         // failures allowed, GPU memory default
    std::vector<core::GpuMemoryPoint> gpu_memory;
    int threads = 1;
    const std::map<int, core::EndpointSeries>* endpoint = nullptr;  // launched sessions' arrivals
};

// Fills every step's verdicts (windows and pooled), the medians over sessions, the
// repeat-window confidence intervals and the agreement with the stored verdicts.
void judge_steps(std::vector<StepAnalysis>& steps, const JudgeInputs& in);

// A judged step's medians over sessions, GPU memory peak and repeat-window intervals, from its
// verdicts (judge_steps calls it; a pool run calls it again once the pool's verdicts replace them).
void summarize_step(StepAnalysis& s);

// The sessions as core's membership rule reads them (a failure: store::is_failure).
std::vector<core::SessionSpan> session_spans(const std::vector<store::SessionRow>& sessions);

}  // namespace seatmark::report
