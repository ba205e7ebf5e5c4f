#include "monitor/monitor_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace seatmark::monitor {

std::vector<StepBand> bands_from_history(const std::vector<core::LiveHistoryPoint>& h,
                                         const std::vector<core::LiveStep>& verdicts, double t_end_s) {
    std::vector<StepBand> out;
    for (const auto& p : h) {
        if (p.step == 0) continue;
        if (out.empty() || out.back().step != p.step) {
            if (!out.empty()) out.back().t1_s = p.t_s;
            StepBand b;
            b.step = p.step;
            b.sessions = p.target;
            b.t0_s = p.t_s;
            b.t1_s = p.t_s;
            out.push_back(b);
        }
    }
    if (!out.empty()) out.back().t1_s = std::max(out.back().t0_s, t_end_s);
    for (auto& b : out)
        for (const auto& v : verdicts)
            if (v.index + 1 == b.step) b.verdict = v.pass ? 1 : 0;
    return out;
}

bool is_failure_state(const std::string& s) {
    return s == "crash" || s == "hang" || s == "device-lost" || s == "software-fallback" || s == "error" ||
           s == "protocol" || s == "killed" || s == "disconnected";
}

EventLine describe_event(const core::LiveEvent& e, int64_t run_started_unix_ns) {
    using namespace core;
    EventLine l;
    l.id = e.id;
    l.kind = e.kind();
    l.t_s = run_started_unix_ns > 0 ? (double(e.t_unix_ns) - double(run_started_unix_ns)) * 1e-9 : 0;
    char buf[512];
    if (auto* b = std::get_if<StepBeginEvent>(&e.data)) {
        std::snprintf(buf, sizeof buf, "step %u of %u begins: %u session%s", b->step, b->steps, b->sessions,
                      b->sessions == 1 ? "" : "s");
    } else if (auto* v = std::get_if<StepVerdictEvent>(&e.data)) {
        l.bad = !v->pass;
        l.cls = v->pass ? EventClass::step_pass : EventClass::step_fail;
        // A step without frames has no FPS or p95 (NaN): n/a, not "nan" or 0.
        auto fig = [](double x, const char* unit) {
            char f[32];
            if (std::isnan(x)) return std::string("n/a");
            std::snprintf(f, sizeof f, "%.1f%s", x, unit);
            return std::string(f);
        };
        std::snprintf(buf, sizeof buf, "step %u (%u sessions): %s, FPS median %s, worst p95 %s%s%s", v->step,
                      v->sessions, v->pass ? "PASS" : "FAIL", fig(v->fps_median, "").c_str(),
                      fig(v->p95_worst_ms, " ms").c_str(), v->reason.empty() ? "" : ": ", v->reason.c_str());
    } else if (auto* s = std::get_if<SessionEndEvent>(&e.data)) {
        l.bad = s->failure || is_failure_state(s->reason);
        if (l.bad) l.cls = EventClass::session_failure;
        std::snprintf(buf, sizeof buf, "session %u ended: %s%s%s", s->session, s->reason.c_str(),
                      s->detail.empty() ? "" : " - ", s->detail.c_str());
    } else {
        const auto& r = std::get<RunEndEvent>(e.data);
        l.bad = r.status != "finished";
        if (l.bad) l.cls = EventClass::fault;
        std::snprintf(buf, sizeof buf, "run %s", r.status.c_str());
    }
    l.text = buf;
    return l;
}

std::string events_summary(const std::vector<EventLine>& events) {
    size_t steps = 0, sessions = 0, faults = 0;
    for (const auto& e : events) {
        steps += e.cls == EventClass::step_fail;
        sessions += e.cls == EventClass::session_failure;
        faults += e.cls == EventClass::fault;
    }
    std::string s = std::to_string(events.size()), sep = ": ";
    auto part = [&](size_t n, const char* one, const char* many) {
        if (!n) return;
        s += sep + std::to_string(n) + " " + (n == 1 ? one : many);
        sep = ", ";
    };
    part(steps, "failed step", "failed steps");
    part(sessions, "session failure", "session failures");
    part(faults, "fault", "faults");
    return s;
}

Tone max_density_tone(const core::LiveState& s) {
    if (s.finished_steps.empty()) return Tone::neutral;
    bool failing = false;
    for (const auto& st : s.finished_steps) failing = failing || !st.pass;
    if (s.max_density_so_far == 0) return failing ? Tone::bad : Tone::neutral;
    return failing ? Tone::warn : Tone::good;
}

double progress(const core::LiveState& s) {
    if (s.steps == 0) return 0;
    if (s.status != "running" && s.status != "stopping") return 1;
    double done = double(s.finished_steps.size());
    return std::clamp(done / double(s.steps), 0.0, 1.0);
}

}  // namespace seatmark::monitor
