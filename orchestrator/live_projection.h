#pragma once
// The live projection: the run controller's state -> core::LiveState (what the live API and
// the monitor show), in one place. Reads the session table, the step machine, the sampler and
// the verdicts so far; changes nothing.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/live_state.h"
#include "core/plan.h"
#include "orchestrator/host_sampler.h"
#include "orchestrator/run_controller.h"
#include "orchestrator/session_table.h"
#include "orchestrator/step_machine.h"
#include "orchestrator/step_seams.h"

namespace seatmark::orchestrator {

struct LiveView {
    const core::Plan* plan = nullptr;
    std::string db_path, host;
    std::string status;  // running, stopping, or the run's final status
    std::string phase;   // the step machine's, or stopping / done
    int64_t run_start_ns = 0;
    const StepMachine* machine = nullptr;
    const SessionTable* sessions = nullptr;
    const HostSampler* sampler = nullptr;
    std::span<const StepOutcome> outcomes;
    uint32_t max_density = 0;
    uint64_t frames_stored = 0, frames_lost = 0;
    const SessionSource* source = nullptr;  // endpoint figures of launched sessions (join mode)
};

core::LiveState project_live(const LiveView& v, int64_t now_ns);

// A session's state as the live API names it: starting, running, stopping, or its end reason.
std::string live_session_state(const Session& s);

// Up to `max` of the session's newest frames of this step with seq >= since, oldest first, among
// those it keeps live (Session::live_frames: the last 10 s, at most 10000).
std::vector<core::LiveFrame> project_frames(const Session& s, uint64_t since, size_t max);

}  // namespace seatmark::orchestrator
