#include "monitor/monitor_data.h"

#include <algorithm>
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
           s == "protocol" || s == "killed";
}

EventLine describe_event(const core::LiveEvent& e, int64_t run_started_unix_ns) {
    EventLine l;
    l.id = e.id;
    l.kind = e.kind;
    l.t_s = run_started_unix_ns > 0 ? double(e.t_unix_ns - run_started_unix_ns) * 1e-9 : 0;
    const auto& d = e.data;
    auto num = [&](const char* k) { return d.contains(k) && d[k].is_number() ? d[k].get<double>() : NAN; };
    auto str = [&](const char* k) { return d.contains(k) && d[k].is_string() ? d[k].get<std::string>() : std::string(); };
    char buf[512];
    if (e.kind == "step-begin") {
        std::snprintf(buf, sizeof buf, "step %.0f of %.0f begins: %.0f session%s", num("step"), num("steps"),
                      num("sessions"), num("sessions") == 1 ? "" : "s");
    } else if (e.kind == "step-verdict") {
        bool pass = d.value("pass", false);
        l.bad = !pass;
        std::string reason = str("reason");
        std::snprintf(buf, sizeof buf, "step %.0f (%.0f sessions): %s, FPS median %.1f, worst p95 %.1f ms%s%s",
                      num("step"), num("sessions"), pass ? "PASS" : "FAIL", num("fps_median"), num("p95_worst_ms"),
                      reason.empty() ? "" : ": ", reason.c_str());
    } else if (e.kind == "session-end") {
        std::string reason = str("reason"), detail = str("detail");
        l.bad = d.value("failure", false) || is_failure_state(reason);
        std::snprintf(buf, sizeof buf, "session %.0f ended: %s%s%s", num("session"), reason.c_str(),
                      detail.empty() ? "" : " - ", detail.c_str());
    } else if (e.kind == "run-end") {
        std::string status = str("status");
        l.bad = status != "finished";
        std::snprintf(buf, sizeof buf, "run %s", status.c_str());
    } else {
        std::snprintf(buf, sizeof buf, "%s", d.dump().c_str());
        l.bad = e.kind.find("fail") != std::string::npos || e.kind.find("crash") != std::string::npos;
    }
    l.text = buf;
    return l;
}

double progress(const core::LiveState& s) {
    if (s.steps == 0) return 0;
    if (s.status != "running" && s.status != "stopping") return 1;
    double done = double(s.finished_steps.size());
    return std::clamp(done / double(s.steps), 0.0, 1.0);
}

}  // namespace seatmark::monitor
