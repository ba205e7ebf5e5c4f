#include "core/verdict.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace seatmark::core {

double active_seconds(const std::vector<FrameRecord>& frames) {
    // In double: an interval is the session's word, and an int64 sum of them could overflow
    // (exact all the same below 2^53 ns, 104 days).
    double ns = 0;
    for (const auto& f : frames)
        if (f.interval_ns > 0) ns += double(f.interval_ns);
    return ns * 1e-9;
}

SessionFigures session_figures(const SessionWindow& s) {
    SessionFigures f;
    f.id = s.id;
    f.profile = s.profile;
    f.failure = s.failure;
    f.model_open_ms = s.model_open_ms;
    f.summary = stats::summarize(s.frames, active_seconds(s.frames));
    const bool judged = s.failure.empty() && s.sla;
    if (judged) {
        f.violations = sla_violations(f.summary, *s.sla);
        f.sla_load = sla_load(f.summary, *s.sla).load;
        if (s.sla->model_open_ms > 0 && s.model_open_ms > s.sla->model_open_ms)  // NaN: not reported, not held against it
            f.violations.push_back(std::to_string(int64_t(std::lround(s.model_open_ms))) + " ms model open > " +
                                   std::to_string(int64_t(std::lround(s.sla->model_open_ms))) + " ms");
        if (s.sla->model_open_ms > 0 && !std::isnan(s.model_open_ms))
            f.sla_load = std::max(f.sla_load, s.model_open_ms / s.sla->model_open_ms);
    }
    if (s.endpoint) {
        f.endpoint = endpoint_figures(s.frames, s.endpoint->arrivals, s.endpoint->ssim, s.span_s, s.t1_ns);
        if (judged) {
            for (auto& x : endpoint_violations(*f.endpoint, *s.sla)) f.violations.push_back(std::move(x));
            // The same bounds as ratios (endpoint_violations says which it breaks): a higher-is-better
            // figure as bound / figure, so > 1 breaks it as everywhere else.
            const auto& e = *f.endpoint;
            const Sla& b = *s.sla;
            constexpr double inf = std::numeric_limits<double>::infinity();
            auto over = [&f](double load) {
                if (!std::isnan(load)) f.sla_load = std::max(f.sla_load, load);
            };
            if (b.has_endpoint_bound() && e.rendered > 0 && e.arrivals == 0) over(inf);
            if (b.endpoint_fps > 0) over(e.fps > 0 ? b.endpoint_fps / e.fps : inf);
            if (b.endpoint_latency_p95_ms > 0) over(e.latency_p95_ms / b.endpoint_latency_p95_ms);
            if (b.delivered_ratio > 0) over(e.delivered_ratio > 0 ? b.delivered_ratio / e.delivered_ratio : inf);
            if (b.ssim > 0) over(e.ssim_mean > 0 ? b.ssim / e.ssim_mean : std::isnan(e.ssim_mean) ? NAN : inf);
        }
    }
    return f;
}

namespace {
// "1 crash, 2 hang": the members that ended in failure, by end reason.
std::string failures_by_reason(const StepVerdict& v) {
    std::string r;
    for (auto& [reason, n] : v.failures_by_reason) r += (r.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
    return r;
}
}  // namespace

StepVerdict judge_window(uint32_t target, const std::vector<SessionWindow>& sessions, uint32_t failures_allowed) {
    std::vector<SessionFigures> members;
    members.reserve(sessions.size());
    for (const auto& s : sessions) members.push_back(session_figures(s));
    return judge_figures(target, std::move(members), failures_allowed);
}

StepVerdict judge_figures(uint32_t target, std::vector<SessionFigures> members, uint32_t failures_allowed) {
    StepVerdict v;
    v.target = target;
    const size_t member_count = members.size();
    std::vector<double> fps, p95;
    bool any_latency = false;
    for (auto& f : members) {
        if (!f.failure.empty()) {
            ++v.failures;
            ++v.failures_by_reason[f.failure];
        }
        if (f.endpoint) {
            ++v.launched;
            const auto worst = [](double& w, double x, bool low) {
                if (std::isnan(x)) return;
                w = std::isnan(w) ? x : low ? std::min(w, x) : std::max(w, x);
            };
            worst(v.endpoint_fps_worst, f.endpoint->fps, true);
            worst(v.endpoint_latency_p95_worst_ms, f.endpoint->latency_p95_ms, false);
            worst(v.delivered_ratio_worst, f.endpoint->delivered_ratio, true);
            worst(v.ssim_worst, f.endpoint->ssim_mean, true);  // the SLA judges the mean
        }
        v.frames += f.summary.frames;
        v.dropped += f.summary.dropped;
        if (f.summary.frames > 0) {
            fps.push_back(f.summary.fps);
            if (!std::isnan(f.summary.p95_ms)) p95.push_back(f.summary.p95_ms);
            v.low1_worst_fps = fps.size() == 1 ? f.summary.low1_fps : std::min(v.low1_worst_fps, f.summary.low1_fps);
            if (!std::isnan(f.summary.latency_p95_ms)) {
                v.latency_p95_worst_ms = std::max(v.latency_p95_worst_ms, f.summary.latency_p95_ms);
                any_latency = true;
            }
            v.stutter_worst = std::max(v.stutter_worst, f.summary.stutter);
        }
        v.sessions.push_back(std::move(f));
    }
    // A figure nothing was measured for is NaN (shown as n/a), never 0: a step without frames
    // did not run at 0 FPS with a 0 ms p95.
    if (!fps.empty()) {
        v.fps_median = stats::median(fps);
        v.fps_min = *std::min_element(fps.begin(), fps.end());
        v.fps_max = *std::max_element(fps.begin(), fps.end());
        v.fairness = stats::jain_fairness(fps);
    } else {
        v.fps_median = v.fps_min = v.fps_max = v.fairness = NAN;
        v.low1_worst_fps = v.stutter_worst = NAN;
    }
    if (!any_latency) v.latency_p95_worst_ms = NAN;  // no frame showed a scripted input
    if (!p95.empty()) {
        v.p95_median_ms = stats::median(p95);
        v.p95_worst_ms = *std::max_element(p95.begin(), p95.end());
    } else {
        v.p95_median_ms = v.p95_worst_ms = NAN;  // the knee and the charts skip it
    }

    if (v.failures > failures_allowed)
        v.reasons.push_back(std::to_string(v.failures) + " session(s) failed (" + failures_by_reason(v) + "), " +
                            std::to_string(failures_allowed) + " allowed");
    if (member_count < target)
        v.reasons.push_back("only " + std::to_string(member_count) + " of " + std::to_string(target) +
                            " sessions were running");
    // Every failing member counted, the worst named (not the first: issue 29 saw "session 0: p95
    // 36.1 ms" while session 1 was at 53.0 ms): the largest figure-to-bound ratio, first among equals.
    const SessionFigures* worst = nullptr;
    for (const auto& f : v.sessions) {
        if (!f.failure.empty() || !f.violations.empty()) ++v.sessions_failed;
        if (!f.violations.empty() && (!worst || f.sla_load > worst->sla_load || std::isnan(worst->sla_load)))
            worst = &f;
    }
    if (worst) {
        v.worst_session = worst->id;
        v.reasons.push_back(sessions_reason(v));
    }
    v.pass = v.reasons.empty();
    return v;
}

namespace {
constexpr std::string_view session_word = "session ";
constexpr std::string_view worst_word = "; worst ";
}

std::string sessions_reason(const StepVerdict& v) {
    std::string r = std::to_string(v.sessions_failed) + " of " + std::to_string(v.sessions.size()) + " sessions failed";
    if (v.failures > 0) r += " (" + failures_by_reason(v) + ")";
    for (const auto& f : v.sessions)
        if (v.worst_session && f.id == *v.worst_session) return r + std::string(worst_word) + session_reason(f.id, f.violations);
    return r;
}

std::string session_reason(uint32_t id, const std::vector<std::string>& violations) {
    std::string r = std::string(session_word) + std::to_string(id) + ": ";
    for (size_t i = 0; i < violations.size(); ++i) r += (i ? ", " : "") + violations[i];
    return r;
}

std::string renumber_session_reason(const std::string& reason, int64_t shift) {
    // "K of N sessions failed ...; worst session ID: ...": the worst's number is moved.
    if (!reason.empty() && reason[0] >= '0' && reason[0] <= '9' && reason.find(" sessions failed") != std::string::npos) {
        const size_t at = reason.find(worst_word);
        if (at == std::string::npos) return reason;
        const size_t tail = at + worst_word.size();
        return reason.substr(0, tail) + renumber_session_reason(reason.substr(tail), shift);
    }
    if (shift == 0 || reason.compare(0, session_word.size(), session_word) != 0) return reason;
    size_t end = session_word.size();
    while (end < reason.size() && reason[end] >= '0' && reason[end] <= '9') ++end;
    if (end == session_word.size() || end + 1 >= reason.size() || reason[end] != ':' || end - session_word.size() > 9)
        return reason;
    const int64_t id = std::stoll(reason.substr(session_word.size(), end - session_word.size())) + shift;
    if (id < 0) return reason;
    return std::string(session_word) + std::to_string(id) + reason.substr(end);
}

}  // namespace seatmark::core
