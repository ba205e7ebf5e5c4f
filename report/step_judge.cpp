#include "report/step_judge.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "core/stats.h"
#include "core/verdict.h"
#include "report/confidence.h"
#include "report/parallel.h"

namespace seatmark::report {

namespace {

using store::SessionRow;

struct Member {
    const SessionRow* session = nullptr;
    std::string failure;  // "" or the end reason
};

// The sessions judged over [.., t_end): the orchestrator judges the sessions alive at that
// time plus those that failed since the step began (failures up to `fail_until` count).
std::vector<Member> members(const std::vector<SessionRow>& sessions, int64_t step_start, int64_t t_end,
                            int64_t fail_until) {
    std::vector<Member> out;
    for (const auto& s : sessions) {
        if (s.started_ns >= t_end) continue;
        if (!s.ended_ns) {
            out.push_back({&s, ""});
        } else if (is_failure(s.end_reason) && *s.ended_ns >= step_start && *s.ended_ns <= fail_until) {
            out.push_back({&s, std::string(store::to_string(s.end_reason))});
        } else if (*s.ended_ns >= t_end) {
            out.push_back({&s, ""});
        }
    }
    return out;
}

std::span<const FrameRecord> frames_between(const FrameMap& frames, int id, int64_t t0, int64_t t1) {
    auto it = frames.find(id);
    if (it == frames.end()) return {};
    const auto& v = it->second;
    auto lo = std::lower_bound(v.begin(), v.end(), t0, [](const FrameRecord& f, int64_t t) { return f.t_begin_ns < t; });
    auto hi = std::lower_bound(lo, v.end(), t1, [](const FrameRecord& f, int64_t t) { return f.t_begin_ns < t; });
    return {v.data() + (lo - v.begin()), static_cast<size_t>(hi - lo)};
}

struct Job {
    size_t step = 0;
    int window = -1;  // index into StepResult::windows; -1: the pooled step verdict
    int64_t t0 = 0, t1 = 0;
    std::vector<Member> members;
    uint64_t frames = 0;  // for scheduling, biggest first
};

double median_of(std::vector<double> v) { return v.empty() ? NAN : stats::median(v); }

}  // namespace

void judge_steps(std::vector<StepResult>& steps, const JudgeInputs& in) {
    // Every window, and every step pooled over its windows, with the orchestrator's judge.
    std::vector<Job> jobs;
    for (size_t k = 0; k < steps.size(); ++k) {
        StepResult& s = steps[k];
        if (s.windows.empty()) continue;
        auto add = [&](int window, int64_t t0, int64_t t1, int64_t fail_until) {
            Job j;
            j.step = k;
            j.window = window;
            j.t0 = t0;
            j.t1 = t1;
            j.members = members(in.sessions, s.started_ns, t1, fail_until);
            for (const auto& m : j.members) j.frames += frames_between(in.frames, m.session->id, t0, t1).size();
            jobs.push_back(std::move(j));
        };
        add(-1, s.measure_start_ns, s.measure_end_ns, std::max(s.ended_ns, s.measure_end_ns));
        if (s.windows.size() > 1)
            for (size_t w = 0; w < s.windows.size(); ++w)
                add(static_cast<int>(w), s.windows[w].start_ns, s.windows[w].end_ns, s.windows[w].end_ns);
    }
    std::sort(jobs.begin(), jobs.end(), [](const Job& x, const Job& y) { return x.frames > y.frames; });
    parallel_for(jobs.size(), in.threads, [&](size_t i) {
        const Job& j = jobs[i];
        StepResult& s = steps[j.step];
        std::vector<core::SessionWindow> windows;
        windows.reserve(j.members.size());
        for (const auto& m : j.members) {
            core::SessionWindow w;
            w.id = static_cast<uint32_t>(m.session->id);
            w.profile = m.session->profile;
            w.sla = &in.sla_for(m.session->profile);
            w.failure = m.failure;
            auto f = frames_between(in.frames, m.session->id, j.t0, j.t1);
            w.frames.assign(f.begin(), f.end());
            windows.push_back(std::move(w));
        }
        auto v = core::judge_step(s.target, windows, in.default_sla.failures);
        // The GPU memory bound, as the orchestrator checks it: the strictest bound among the sessions.
        double limit = INFINITY;
        for (const auto& f : v.sessions) limit = std::min(limit, in.sla_for(f.profile).gpu_memory_pct);
        if (std::isinf(limit)) limit = in.default_sla.gpu_memory_pct;
        auto mem = core::check_gpu_memory(in.gpu_memory, j.t0, j.t1, limit);
        if (mem.checked && !mem.pass) {
            v.pass = false;
            v.reasons.push_back(mem.detail);
        }
        if (j.window < 0 && mem.checked) s.gpu_mem_peak_pct = mem.peak_pct;
        if (j.window < 0) s.verdict = std::move(v);
        else s.windows[static_cast<size_t>(j.window)].verdict = std::move(v);
    });

    for (auto& s : steps) {
        if (s.windows.empty()) {
            s.verdict.target = s.target;
            s.verdict.pass = false;
            s.verdict.reasons.push_back("not measured: the run ended before this step's window closed");
            s.agrees = !s.stored || *s.stored == "fail";
            continue;
        }
        if (s.windows.size() == 1) s.windows[0].verdict = s.verdict;  // the same frames, judged once
        // As the orchestrator does: the step also fails when any of its windows failed.
        for (const auto& w : s.windows)
            if (!w.verdict.pass && s.verdict.pass) {
                s.verdict.pass = false;
                s.verdict.reasons.push_back("a measurement window failed: " +
                                            (w.verdict.reasons.empty() ? std::string("?") : w.verdict.reasons.front()));
            }
        if (!s.measured) {
            s.verdict.pass = false;
            s.verdict.reasons.insert(s.verdict.reasons.begin(), "not measured in full: the run ended during this step");
        }
        s.agrees = !s.stored || (*s.stored == "pass") == s.verdict.pass;
        std::vector<double> p50, p99, lat;
        for (const auto& f : s.verdict.sessions) {
            if (f.summary.frames == 0) continue;
            if (!std::isnan(f.summary.p50_ms)) p50.push_back(f.summary.p50_ms);
            if (!std::isnan(f.summary.p99_ms)) p99.push_back(f.summary.p99_ms);
            if (!std::isnan(f.summary.latency_p95_ms)) lat.push_back(f.summary.latency_p95_ms);
        }
        s.p50_median_ms = median_of(p50);
        s.p99_median_ms = median_of(p99);
        s.latency_p95_median_ms = median_of(lat);
        if (s.verdict.sessions.empty() || s.verdict.frames == 0) s.verdict.p95_median_ms = NAN;
        if (s.windows.size() >= 2) {
            std::vector<double> fps, p95;
            for (const auto& w : s.windows) {
                fps.push_back(w.verdict.fps_median);
                p95.push_back(w.verdict.p95_median_ms);
            }
            s.fps_ci = t_interval_95(fps);
            s.p95_ci = t_interval_95(p95);
        } else {
            s.fps_ci.n = s.p95_ci.n = static_cast<int>(s.windows.size());
        }
    }
}

}  // namespace seatmark::report
