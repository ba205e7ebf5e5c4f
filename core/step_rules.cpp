#include "core/step_rules.h"

#include <algorithm>
#include <cmath>

namespace seatmark::core {

std::vector<Member> span_members(std::span<const SessionSpan> sessions, int64_t step_start_ns, int64_t t1_ns) {
    std::vector<Member> out;
    for (const auto& s : sessions) {
        if (s.started_ns >= t1_ns) continue;
        if (!s.ended_ns || *s.ended_ns >= t1_ns) {
            out.push_back({&s, ""});  // running at t1
        } else if (!s.failure.empty() && *s.ended_ns >= step_start_ns) {
            out.push_back({&s, s.failure});  // failed inside the step, before t1
        }
    }
    return out;
}

int64_t failure_time(bool hang, int64_t seen_ns, int64_t started_ns, int64_t last_life_ns) {
    if (!hang || last_life_ns == INT64_MIN) return seen_ns;
    return std::clamp(last_life_ns, std::min(started_ns, seen_ns), seen_ns);
}

double gpu_memory_limit(const StepVerdict& v, const std::function<const Sla&(const std::string&)>& sla_for,
                        const Sla& default_sla) {
    double limit = INFINITY;
    for (const auto& f : v.sessions) limit = std::min(limit, sla_for(f.profile).gpu_memory_pct);
    return std::isinf(limit) ? default_sla.gpu_memory_pct : limit;
}

void apply_gpu_memory(StepVerdict& v, const GpuMemoryCheck& c) {
    if (!c.checked) return;
    v.gpu_mem_peak_pct = c.peak_pct;
    if (c.pass) return;
    v.pass = false;
    v.reasons.insert(v.reasons.begin(), c.detail);
}

StepVerdict judge_span(const StepJudge& j, std::span<const SessionSpan> sessions, int64_t t0, int64_t t1,
                       GpuMemoryCheck* gpu_check) {
    std::vector<SessionFigures> members;
    for (const auto& m : span_members(sessions, j.step_start_ns, t1)) {
        SessionWindow w;
        w.id = m.session->id;
        w.profile = m.session->profile;
        w.sla = &j.sla_for(m.session->profile);
        w.failure = m.failure;
        w.model_open_ms = m.session->model_open_ms;
        w.frames = j.frames(m.session->id, t0, t1);
        if (j.endpoint) w.endpoint = j.endpoint(m.session->id);
        w.span_s = double(t1 - t0) * 1e-9;
        w.t1_ns = t1;
        members.push_back(session_figures(w));  // w's frames go here, before the next member's are read
    }
    StepVerdict v = judge_figures(j.target, std::move(members), j.default_sla.failures);
    if (j.gpu_memory) {
        GpuMemoryCheck c = j.gpu_memory(t0, t1, gpu_memory_limit(v, j.sla_for, j.default_sla));
        apply_gpu_memory(v, c);
        if (gpu_check) *gpu_check = c;
    }
    if (!j.shortfall.empty()) {
        v.pass = false;
        v.reasons.insert(v.reasons.begin(), j.shortfall);
    }
    return v;
}

void fold_windows(StepVerdict& pooled, std::span<const StepVerdict> windows) {
    for (const auto& w : windows)
        if (!w.pass && pooled.pass) {
            pooled.pass = false;
            pooled.reasons.push_back("a measurement window failed: " +
                                     (w.reasons.empty() ? std::string("?") : w.reasons.front()));
        }
}

void mark_not_measured(StepVerdict& v, bool any_window_closed) {
    v.pass = false;
    v.reasons.insert(v.reasons.begin(), any_window_closed
                                            ? "not measured in full: the run ended during this step"
                                            : "not measured: the run ended before this step's window closed");
}

MaxDensity max_density(std::span<const StepPass> steps) {
    MaxDensity d;
    for (size_t k = 0; k < steps.size(); ++k) {
        if (!steps[k].pass) break;
        d.sessions = steps[k].target;
        d.step = k;
    }
    return d;
}

Knee find_knee(std::span<const uint32_t> sessions, std::span<const double> p95, double margin_pct) {
    Knee k;
    k.margin_pct = margin_pct;
    const size_t n = std::min(sessions.size(), p95.size());
    for (size_t s = 0; s < n; ++s)
        if (std::isfinite(p95[s]) && (!k.baseline_step || sessions[s] < sessions[*k.baseline_step])) k.baseline_step = s;
    if (!k.baseline_step || p95[*k.baseline_step] <= 0) return Knee{.margin_pct = margin_pct};
    k.has_baseline = true;
    k.baseline_ms = p95[*k.baseline_step];
    k.threshold_ms = k.baseline_ms * (1 + margin_pct / 100);
    for (size_t s = 0; s < n; ++s)
        if (std::isfinite(p95[s]) && p95[s] > k.threshold_ms && (!k.step || sessions[s] < sessions[*k.step])) k.step = s;
    for (size_t s = 0; s < n; ++s)
        if (std::isfinite(p95[s]) && p95[s] <= k.threshold_ms && (!k.step || sessions[s] < sessions[*k.step]) &&
            (!k.below || sessions[s] > *k.below))
            k.below = sessions[s];
    return k;
}

}  // namespace seatmark::core
