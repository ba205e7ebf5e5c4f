#include "monitor/live_bounds.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/plan.h"

namespace seatmark::monitor {

namespace {

using core::max_plan_steps;
using core::max_step_sessions;

// Sessions a state lists: every one of the run so far, replacements of failed ones included.
constexpr size_t max_listed_sessions = 16 * size_t(max_step_sessions);

[[noreturn]] void refuse(const std::string& what, const std::string& value, const std::string& limit) {
    throw std::runtime_error("live API sent " + what + " = " + value + ", " + limit +
                             "; not a seatmark run (or a corrupted one): ignored");
}

void at_most(const char* what, uint64_t v, uint64_t limit) {
    if (v > limit) refuse(what, std::to_string(v), "over the limit of " + std::to_string(limit));
}

void time_in_range(const char* what, double v) {
    if (std::isnan(v)) return;  // "not known" is allowed; infinities and far-off times are not
    if (!(v >= -max_run_seconds && v <= max_run_seconds))
        refuse(what, std::to_string(v), "outside +-" + std::to_string(int64_t(max_run_seconds)) + " s");
}

}  // namespace

void check_live_state(const core::LiveState& s) {
    at_most("step.count", s.steps, max_plan_steps);
    at_most("step.current", s.step, s.steps);
    at_most("step.target", s.target, max_step_sessions);
    at_most("step.alive", s.alive, max_listed_sessions);
    at_most("verdict.max_density_so_far", s.max_density_so_far, max_step_sessions);
    at_most("the number of judged steps", s.finished_steps.size(), s.steps);
    for (const auto& v : s.finished_steps) {
        at_most("verdict.steps[].step", uint64_t(v.index) + 1, s.steps);
        at_most("verdict.steps[].sessions", v.sessions, max_step_sessions);
    }
    at_most("the number of sessions", s.sessions.size(), max_listed_sessions);
    time_in_range("run.elapsed_s", s.elapsed_s);
    time_in_range("step.phase_left_s", s.phase_left_s);
}

void check_live_history(const std::vector<core::LiveHistoryPoint>& h) {
    double last = -max_run_seconds;
    for (const auto& p : h) {
        time_in_range("history t_s", p.t_s);
        if (p.t_s < last) refuse("history t_s", std::to_string(p.t_s), "before the point ahead of it");
        last = p.t_s;
        at_most("history step", p.step, max_plan_steps);
        at_most("history target", p.target, max_step_sessions);
        at_most("history alive", p.alive, max_listed_sessions);
    }
}

void check_live_frames(const std::vector<core::LiveFrame>& f, size_t asked, int64_t mono_start_ns) {
    at_most("the number of frames", f.size(), asked);
    const long double limit_ns = max_run_seconds * 1e9;
    for (const auto& x : f) {
        long double dt = static_cast<long double>(x.t_begin_ns) - static_cast<long double>(mono_start_ns);
        if (!(dt >= -limit_ns && dt <= limit_ns))
            refuse("frames t_begin_ns", std::to_string(x.t_begin_ns),
                   "more than " + std::to_string(int64_t(max_run_seconds)) + " s from the run's start");
    }
}

}  // namespace seatmark::monitor
