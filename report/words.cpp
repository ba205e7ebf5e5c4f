#include "report/words.h"

#include <cmath>

#include "report/format.h"

namespace seatmark::report {

namespace {
std::string sessions_text(uint32_t n) { return std::to_string(n) + (n == 1 ? " session" : " sessions"); }
}  // namespace

Headline headline(const RunAnalysis& a) {
    Headline h;
    h.density = a.max_density > 0 ? std::to_string(a.max_density) + " session" + (a.max_density == 1 ? "" : "s")
                                   : "none: no step passed";
    h.density_rule =
        "max density is the largest step at which it and every step below it met the service level; "
        "a step meets it when every session's frames in the measurement window(s) do and no more sessions "
        "failed than allowed";
    h.sla = sla_text(a.default_sla);
    for (const auto& [profile, sla] : a.sla) h.sla += "; profile " + profile + ": " + sla_text(sla);

    if (!a.knee.has_baseline) {
        h.knee = a.steps.empty() ? "n/a: no step was measured"
                                 : "n/a: no measured step has frame intervals to take a baseline from";
    } else {
        const uint32_t base = a.steps[*a.knee.baseline_step].target;
        const std::string baseline = std::to_string(base) + "-session baseline " + num(a.knee.baseline_ms) +
                                     " ms (threshold " + num(a.knee.threshold_ms) + " ms)";
        if (a.knee.step) {
            const auto& s = a.steps[*a.knee.step];
            h.knee = "at " + sessions_text(s.target) + ": p95 " + num(s.verdict.p95_median_ms) + " ms is more than " +
                     num(a.knee.margin_pct, 0) + " % above the " + baseline;
            // An adaptive search probes a few counts: the knee is somewhere above the last one below it.
            if (a.search.adaptive && a.knee.below && *a.knee.below + 1 < s.target)
                h.knee += "; between " + std::to_string(*a.knee.below) + " (the most sessions probed below the "
                          "threshold) and " + std::to_string(s.target) + ", as probed";
        } else {
            h.knee = "not reached: p95 stayed within " + num(a.knee.margin_pct, 0) + " % of the " + baseline +
                     " in every measured step";
        }
    }

    if (!a.hosts.empty()) {
        const auto& x = a.hosts.front();
        h.host = x.hostname;
        if (!x.cpu_model.empty()) h.host += ": " + x.cpu_model;
        if (x.cpu_count) h.host += ", " + std::to_string(x.cpu_count) + " CPUs";
        if (x.cpu_capacity && !x.cpu_capacity_note.empty()) h.host += " (the run could use " + x.cpu_capacity_note + ")";
        if (x.mem_total_bytes) h.host += ", " + bytes(double(x.mem_total_bytes)) + " memory";
        if (!x.os.empty()) h.host += ", " + x.os;
        if (!x.kernel.empty()) h.host += ", kernel " + x.kernel;
        if (!x.gpu.empty()) h.host += ", GPU " + x.gpu;
        for (size_t i = 1; i < a.hosts.size(); ++i) h.host += "; " + a.hosts[i].hostname;
    } else {
        h.host = a.run.host.empty() ? "unknown" : a.run.host;
    }

    for (const auto& d : a.devices)
        h.devices.push_back(std::to_string(d.sessions) + " session" + (d.sessions == 1 ? "" : "s") + ": " +
                            device_text(d) + (d.software ? " (SOFTWARE RENDERER: the CPU draws the frames)" : ""));
    if (a.devices.empty()) h.devices.push_back("no session was started");

    h.status = a.status_text;
    size_t measured = 0;
    uint32_t lo = 0, hi = 0;
    for (const auto& s : a.steps)
        if (!s.windows.empty()) {
            if (!measured) lo = s.target;
            hi = s.target;
            ++measured;
        }
    double window_s = 0;
    size_t windows = 0;
    for (const auto& s : a.steps)
        for (const auto& w : s.windows) {
            window_s += double(w.end_ns - w.start_ns) * 1e-9;
            ++windows;
        }
    h.measured = std::to_string(measured) + " step" + (measured == 1 ? "" : "s");
    if (measured) h.measured += " of " + std::to_string(lo) + ".." + std::to_string(hi) + " sessions";
    if (windows)
        h.measured += ", " + std::to_string(windows) + " window" + (windows == 1 ? "" : "s") + " of about " +
                      seconds_text(window_s / double(windows));
    h.measured += ", " + std::to_string(a.frames) + " frames, " + seconds_text(a.seconds(a.t1_ns)) + " in all";

    if (!a.finished())
        h.warnings.push_back("The run did not finish (" + std::string(store::to_string(a.status)) +
                             "): the figures cover only what was recorded before it stopped.");
    if (a.max_density == 0) {
        if (a.steps.empty())
            h.warnings.push_back("No step was recorded: there is no density to report.");
        else if (a.steps[0].windows.empty())
            h.warnings.push_back("No step passed: the run ended before the first step (" + sessions_text(a.steps[0].target) +
                                 ") was measured.");
        else {
            std::string missing;  // hosts whose own data is not here: the pool's verdicts are not known
            for (const auto& x : a.pool.hosts)
                if (!x.steps.empty() && x.steps[0].no_data) missing += (missing.empty() ? "" : ", ") + x.host.hostname;
            if (!missing.empty())
                h.warnings.push_back("No step can be shown to pass: a step passes when every host passed it, and the own "
                                     "database of " + missing + " is not in this file (merge it with the others' files).");
            else
                h.warnings.push_back("No step passed: not even the first step (" + sessions_text(a.steps[0].target) +
                                     ") met the service level.");
        }
    }
    for (const auto& d : a.devices)
        if (d.software)
            h.warnings.push_back(std::to_string(d.sessions) + " session(s) ran on a software renderer (" + d.device_name +
                                 "): frames were drawn by the CPU, so this measures the CPU, not a GPU.");
    for (const auto& s : a.steps) {
        if (s.agrees || !s.stored) continue;
        const std::string step = "Step " + std::to_string(s.idx + 1) + " (" + sessions_text(s.target) + ")";
        if ((*s.stored == "pass") != s.verdict.pass)
            h.warnings.push_back(step + ": recomputed from the frames it " + (s.verdict.pass ? "passes" : "fails") +
                                 ", but the orchestrator recorded '" + *s.stored + "'.");
        else  // the same verdict: say which figure differs, not that the verdicts do
            h.warnings.push_back(step + ": recomputed from the frames it " + (s.verdict.pass ? "passes" : "fails") +
                                 " as recorded, but its figures differ from the recorded ones (" +
                                 (s.disagreements.empty() ? std::string("the windows' verdicts") : s.disagreements.front()) + ").");
    }
    for (const auto& s : a.steps)
        if (!s.measured)
            h.warnings.push_back("Step " + std::to_string(s.idx + 1) + " (" + sessions_text(s.target) +
                                 ") was not measured in full: the run ended during it.");
    if (!a.plan_note.empty()) h.warnings.push_back("Plan: " + a.plan_note + ".");
    return h;
}

const std::vector<Definition>& definitions() {
    static const std::vector<Definition> d = {
        {"frame interval", "t_present[i] - t_present[i-1] for consecutive frames of one active interaction stretch, never across a think pause; a frame is presented when vkQueuePresentKHR returns (--window) or its fence signals (headless). Begin-to-begin is stored beside it (begin_interval_ns): under a frame cap the begins keep the cap's timetable while presents wander with load"},
        {"cpu time", "frame begin to vkQueueSubmit returned"},
        {"gpu time", "Vulkan timestamps, top to bottom of the frame's command buffer, times timestampPeriod"},
        {"interaction latency", "scripted input event to the fence of the first frame that shows it"},
        {"FPS", "frames / active time (real time in active stretches, so think pauses do not count); per session, then the median (and min..max) over the step's sessions"},
        {"p50 / p95 / p99", "nearest-rank percentiles of frame interval per session; the step shows the median over its sessions (and the worst session for p95)"},
        {"1 % low FPS", "seatmark's definition: 1000 / p99 frame interval; the step shows its worst session. MangoHud's \"1% Min FPS\" is a different figure, the mean per-frame FPS of the slowest 1 % of frames (lower; the session summary shows it beside this one); the time-weighted variant (CapFrameX style) is in sessions.csv, labelled low1_tw_fps"},
        {"latency p95", "nearest-rank p95 of interaction latency per session; the step shows its worst session"},
        {"stutter", "share of frames with interval > 2.5 x the session's median interval; the step shows its worst session"},
        {"dropped", "gaps in the per-session frame sequence number, summed over the step's sessions"},
        {"fairness", "Jain's index (sum x)^2 / (n * sum x^2) over per-session FPS; 1 = every session got the same"},
        {"failures", "sessions that ended with a failure (crash, hang, device-lost, software-fallback, error, protocol) during the step, by reason"},
        {"host CPU", "mean of the host-wide CPU use samples (/proc/stat, every 0.5 s) inside the step's measurement windows"},
        {"GPU share", "per-session GPU use from NVML per-process samples, or DRM engine time, or process CPU time on a software renderer; always labelled by source"},
        {"step verdict", "pass when every session of the step meets its profile's service level in the measurement window(s), pooled over all windows, no more sessions failed than allowed, every window passed on its own, and all target sessions ran; recomputed here from the frames with the orchestrator's own judge"},
        {"max density", "the last step such that it and every step below it passed"},
        {"knee (VSImax-style)", "baseline = p95 frame interval (median over sessions) of the first step; the knee is the first step whose p95 exceeds baseline x (1 + margin / 100), margin from the plan"},
        {"confidence interval", "with two or more measurement windows per step: 95 % Student-t interval of the mean over windows of the window's median FPS (and median p95); n/a with one window"},
        {"heat map cell", "nearest-rank p95 of the frame intervals of frames that began in that time bin; grey: no frame with an interval (think pause); blank: the session was not running"},
    };
    return d;
}

std::string verdict_text(const StepAnalysis& s) {
    if (s.verdict.pass) return "pass";
    return "fail: " + (s.verdict.reasons.empty() ? std::string("?") : s.verdict.reasons.front());
}

}  // namespace seatmark::report
