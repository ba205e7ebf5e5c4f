#include "orchestrator/run_output.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "orchestrator/run_controller.h"

namespace seatmark::orchestrator {

namespace {
std::string num(double v, int digits = 1) {
    if (std::isnan(v)) return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}
}  // namespace

RunOutput::RunOutput(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO)) {}

void RunOutput::start(const core::Plan& plan, const std::string& db_path) {
    if (quiet_) return;
    std::string steps;
    for (auto n : plan.steps) steps += (steps.empty() ? "" : ",") + std::to_string(n);
    std::fprintf(stderr, "seatmark run: plan '%s', steps %s, settle %s s, window %s s x %u, database %s\n",
                 plan.name.c_str(), steps.c_str(), num(plan.settle_s).c_str(), num(plan.window_s).c_str(),
                 plan.repeats, db_path.c_str());
}

void RunOutput::clear_line() {
    if (line_open_) {
        std::fputs("\r\033[K", stderr);
        line_open_ = false;
    }
}

std::string status_text(const StatusSnapshot& s) {
    char phase[96];
    if (s.phase == "starting")  // "120s left" read as the step's length: it is how long the start may take
        std::snprintf(phase, sizeof phase, "starting, up to %.0fs more", s.phase_left_s);
    else if (s.phase == "settling" || s.phase == "measuring")
        std::snprintf(phase, sizeof phase, "%s, %.0fs left", s.phase.c_str(), s.phase_left_s);
    else
        std::snprintf(phase, sizeof phase, "%s", s.phase.c_str());
    const std::string sessions = std::to_string(s.alive) + "/" + std::to_string(s.target) +
                                 (s.drawing < s.alive ? " (" + std::to_string(s.alive - s.drawing) + " not drawing yet)" : "");
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "[%6.0fs] step %zu/%zu %s | sessions %s | frames/s %s (median drawing session, last 1 s) p95 %s ms | "
                  "passed up to %u%s",
                  s.elapsed_s, s.step, s.steps, phase, sessions.c_str(), num(s.fps_median).c_str(), num(s.p95_ms).c_str(), s.passed,
                  s.failed_steps ? (", " + std::to_string(s.failed_steps) + " step(s) failed").c_str() : "");
    return buf;
}

void RunOutput::status(const StatusSnapshot& s) {
    if (quiet_) return;
    const std::string text = status_text(s);
    const char* buf = text.c_str();
    if (tty_) {
        clear_line();
        std::fputs(buf, stderr);
        line_open_ = true;
    } else {
        // A log file gets a line every 5 s instead of a rewritten one.
        int64_t t = now_ns();
        if (t - last_plain_ns_ < 5'000'000'000) return;
        last_plain_ns_ = t;
        std::fprintf(stderr, "%s\n", buf);
    }
    std::fflush(stderr);
}

std::string describe_devices(const std::vector<StepDevice>& devices) {
    if (devices.empty()) return "no session judged";
    std::string out;
    for (const StepDevice& d : devices) {
        if (!out.empty()) out += ", ";
        if (devices.size() > 1) out += std::to_string(d.sessions) + " on ";
        out += d.name.empty() ? "a device it did not report" : "'" + d.name + "'";
        if (d.software) out += " (software renderer)";
    }
    return out;
}

void RunOutput::step_done(const StepOutcome& o, size_t steps) {
    if (quiet_) return;
    clear_line();
    const auto& v = o.verdict;
    std::fprintf(stderr, "step %u/%zu: %u sessions on %s, FPS %s median [%s..%s], p95 %s ms worst, %s%s\n", o.index + 1,
                 steps, v.target, describe_devices(o.devices).c_str(), num(v.fps_median).c_str(), num(v.fps_min).c_str(), num(v.fps_max).c_str(),
                 num(v.p95_worst_ms).c_str(), v.pass ? "PASS" : "FAIL: ",
                 v.pass ? "" : v.reasons.front().c_str());
}

void RunOutput::session_ended(uint32_t id, const std::string& reason, const std::string& detail) {
    if (quiet_ || reason == "ok" || reason == "killed") return;
    clear_line();
    std::fprintf(stderr, "session %u ended: %s%s%s\n", id, reason.c_str(), detail.empty() ? "" : ": ", detail.c_str());
}

void RunOutput::note(const std::string& text) {
    clear_line();
    std::fprintf(stderr, "seatmark run: %s\n", text.c_str());
}

std::string format_run_table(const RunOutcome& r, const core::Plan& plan) {
    std::string s;
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-5s %8s %9s %15s %8s %8s %8s %8s %8s %6s %8s  %s\n", "step", "sessions",
                  "FPS med", "FPS min..max", "p95 ms", "1%low", "lat p95", "stutter", "dropped", "Jain", "failed",
                  "verdict");
    s += buf;
    for (const auto& o : r.steps) {
        const auto& v = o.verdict;
        std::string range = num(v.fps_min) + ".." + num(v.fps_max);
        std::snprintf(buf, sizeof buf, "%-5u %8u %9s %15s %8s %8s %8s %7s%% %8llu %6s %8u  %s\n", o.index + 1, v.target,
                      num(v.fps_median).c_str(), range.c_str(), num(v.p95_worst_ms).c_str(),
                      num(v.low1_worst_fps).c_str(), num(v.latency_p95_worst_ms).c_str(),
                      num(v.stutter_worst * 100).c_str(), static_cast<unsigned long long>(v.dropped),
                      num(v.fairness, 2).c_str(), v.failures, v.pass ? "pass" : ("FAIL: " + v.reasons.front()).c_str());
        s += buf;
    }
    s += "\nrendered on (as the sessions said):\n";
    for (const auto& o : r.steps) s += "step " + std::to_string(o.index + 1) + ": " + describe_devices(o.devices) + "\n";
    const auto& sla = plan.default_sla;
    std::snprintf(buf, sizeof buf,
                  "\nSLA per session: p95 interval <= %s ms, 1%% low >= %s FPS, latency p95 <= %s ms, stutter <= %s %%, "
                  "%u failures allowed\n",
                  num(sla.p95_interval_ms).c_str(), num(sla.low1_fps).c_str(), num(sla.latency_p95_ms).c_str(),
                  num(sla.stutter_pct).c_str(), sla.failures);
    s += buf;
    s += "(p95 / 1% low / latency / stutter: the worst session of the step; FPS = frames / active time per session;\n"
         " Jain = fairness of per-session FPS, 1 = equal)\n";
    std::snprintf(buf, sizeof buf, "max density: %lld sessions (the last step that passed with every step below it)\n",
                  static_cast<long long>(r.max_density));
    s += buf;
    std::snprintf(buf, sizeof buf, "run %s in %.0f s; %llu frames stored, %llu lost; database %s\n", r.status.c_str(),
                  r.wall_s, static_cast<unsigned long long>(r.frames_stored),
                  static_cast<unsigned long long>(r.frames_lost), r.db_path.c_str());
    s += buf;
    return s;
}

nlohmann::json run_json(const RunOutcome& r, const core::Plan& plan) {
    using nlohmann::json;
    auto n = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
    json steps = json::array();
    for (const auto& o : r.steps) {
        const auto& v = o.verdict;
        json sessions = json::array();
        for (const auto& f : v.sessions)
            sessions.push_back({{"id", f.id},
                                {"profile", f.profile},
                                {"frames", f.summary.frames},
                                {"fps", n(f.summary.fps)},
                                {"p95_ms", n(f.summary.p95_ms)},
                                {"low1_fps", n(f.summary.low1_fps)},
                                {"latency_p95_ms", n(f.summary.latency_p95_ms)},
                                {"stutter", n(f.summary.stutter)},
                                {"failure", f.failure},
                                {"violations", f.violations}});
        json devices = json::array();
        for (const auto& d : o.devices)
            devices.push_back({{"device", d.name.empty() ? json(nullptr) : json(d.name)},
                               {"software", d.software},
                               {"sessions", d.sessions}});
        steps.push_back({{"step", o.index + 1},
                         {"sessions", v.target},
                         {"devices", devices},
                         {"fps_median", n(v.fps_median)},
                         {"fps_min", n(v.fps_min)},
                         {"fps_max", n(v.fps_max)},
                         {"p95_worst_ms", n(v.p95_worst_ms)},
                         {"low1_worst_fps", n(v.low1_worst_fps)},
                         {"latency_p95_worst_ms", n(v.latency_p95_worst_ms)},
                         {"stutter_worst", n(v.stutter_worst)},
                         {"dropped", v.dropped},
                         {"fairness", n(v.fairness)},
                         {"failures", v.failures},
                         {"failures_by_reason", v.failures_by_reason},
                         {"pass", v.pass},
                         {"reasons", v.reasons},
                         {"per_session", sessions}});
    }
    nlohmann::json j = {{"plan", plan.name},  {"database", r.db_path},          {"status", r.status},
                        {"max_density", r.max_density}, {"frames_stored", r.frames_stored}, {"frames_lost", r.frames_lost},
                        {"wall_s", r.wall_s}, {"steps", steps}};
    if (!r.abort_cause.empty()) j["abort_cause"] = r.abort_cause;
    return j;
}

}  // namespace seatmark::orchestrator
