#include "orchestrator/adaptive_planner.h"

namespace seatmark::orchestrator {

AdaptivePlanner::AdaptivePlanner(const core::Plan& plan)
    : plan_(plan), search_({plan.search.min, plan.search.max, plan.search.resolution}) {}

bool AdaptivePlanner::more_windows(uint32_t closed, std::span<const core::StepVerdict> judged) {
    // The plan's repeats back to back; after them, one window at a time once every verdict is in.
    if (closed < plan_.repeats) return true;
    if (judged.size() < closed) return false;  // asked again once all are judged
    windows_.assign(judged.begin(), judged.end());
    auto sla = [this](const std::string& p) -> const Sla& { return plan_.sla_for(p); };
    return core::decide_probe(judged, sla, plan_.repeats, plan_.search.max_repeats).state == core::ProbeState::more;
}

std::optional<uint32_t> AdaptivePlanner::next(std::span<const StepRecord> done) {
    const StepRecord& r = done.back();
    core::Probe p;
    p.step = r.index;
    p.sessions = r.target;
    p.started_ns = r.started_ns;
    p.ended_ns = r.ended_ns;
    auto sla = [this](const std::string& pr) -> const Sla& { return plan_.sla_for(pr); };
    if (!r.decided.empty()) {
        p.decision.state = core::ProbeState::fail;  // ended early: its outcome was already decided
        p.decision.detail = "ended early: " + r.decided;
    } else {
        p.decision = core::decide_probe(windows_, sla, plan_.repeats, plan_.search.max_repeats);
        // The machine closed the step: a probe still "more" ran out of windows it was allowed.
        if (p.decision.state == core::ProbeState::more) p.decision.state = core::ProbeState::undecided;
    }
    windows_.clear();
    search_.record(std::move(p));
    return search_.next();
}

std::optional<core::MaxDensity> AdaptivePlanner::answer() const {
    const core::SearchAnswer a = search_.answer();
    return core::MaxDensity{a.max_density, a.step};
}

std::unique_ptr<StepPlanner> make_planner(const core::Plan& plan) {
    if (plan.search.adaptive) return std::make_unique<AdaptivePlanner>(plan);
    return std::make_unique<LinearPlanner>(plan.steps, plan.repeats, plan.stop == core::StopRule::first_failure);
}

}  // namespace seatmark::orchestrator
