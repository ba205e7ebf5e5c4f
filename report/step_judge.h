#pragma once
// Judges every step of a run from its frames exactly as the orchestrator judged it live
// (orchestrator/run_controller.cpp): each measurement window on its own, then the step pooled
// over all its windows (first window start .. last window end), failing also when any window
// failed; the GPU memory bound as core/gpu_memory_check.h checks it.
//
// Who is in a step: the sessions running at the end of the window(s), plus those that failed
// since the step began (a failure counts in the step it ended in; ok/killed/running are not
// failures). Sessions that ended before the step are not in it.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "core/sla.h"
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
};

// Fills every step's verdicts (windows and pooled), the medians over sessions, the
// repeat-window confidence intervals and the agreement with the stored verdicts.
void judge_steps(std::vector<StepResult>& steps, const JudgeInputs& in);

}  // namespace seatmark::report
