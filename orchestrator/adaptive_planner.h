#pragma once
// The step planner of `[steps] search = "adaptive"` (core/density_search.h) on the step machine's
// seam (orchestrator/step_seams.h): probes grow geometrically, then bisect; each probe measures
// windows until its SLA load's confidence interval lies on one side of the bound (or the plan's
// max_repeats: undecided). make_planner() picks it or the linear ramp for a plan.
#include <memory>

#include "core/density_search.h"
#include "core/plan.h"
#include "orchestrator/step_seams.h"

namespace seatmark::orchestrator {

class AdaptivePlanner final : public StepPlanner {
public:
    explicit AdaptivePlanner(const core::Plan& plan);
    std::optional<uint32_t> first() override { return search_.next(); }
    bool more_windows(uint32_t closed, std::span<const core::StepVerdict> judged) override;
    std::optional<uint32_t> next(std::span<const StepRecord> done) override;
    size_t planned_steps() const override { return search_.planned_steps(); }
    std::optional<core::MaxDensity> answer() const override;
    const core::DensitySearch& search() const { return search_; }

private:
    const core::Plan& plan_;
    core::DensitySearch search_;
    std::vector<core::StepVerdict> windows_;  // the current probe's judged windows
};

// The planner a plan asks for: AdaptivePlanner for search = "adaptive", else the linear ramp.
std::unique_ptr<StepPlanner> make_planner(const core::Plan& plan);

}  // namespace seatmark::orchestrator
