#include "report/step_judge.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "core/stats.h"
#include "core/step_rules.h"
#include "report/confidence.h"
#include "report/parallel.h"

namespace seatmark::report {

namespace {

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
    int window = -1;  // index into StepAnalysis::windows; -1: the pooled step verdict
    int64_t t0 = 0, t1 = 0;
    uint64_t frames = 0;  // for scheduling, biggest first
};

double median_of(std::vector<double> v) { return v.empty() ? NAN : stats::median(v); }

}  // namespace

std::vector<core::SessionSpan> session_spans(const std::vector<store::SessionRow>& sessions) {
    std::vector<core::SessionSpan> out;
    out.reserve(sessions.size());
    for (const auto& s : sessions) {
        out.push_back({static_cast<uint32_t>(s.id), s.profile, s.started_ns, s.ended_ns,
                       store::is_failure(s.end_reason) ? std::string(store::to_string(s.end_reason)) : ""});
        if (s.model_open_ms) out.back().model_open_ms = *s.model_open_ms;
    }
    return out;
}

void judge_steps(std::vector<StepAnalysis>& steps, const JudgeInputs& in) {
    // Every window, and every step pooled over its windows, with core's rules (core/step_rules.h).
    const std::vector<core::SessionSpan> spans = session_spans(in.sessions);
    std::vector<Job> jobs;
    for (size_t k = 0; k < steps.size(); ++k) {
        StepAnalysis& s = steps[k];
        if (s.windows.empty()) continue;
        auto add = [&](int window, int64_t t0, int64_t t1) {
            Job j{k, window, t0, t1, 0};
            for (const auto& sp : spans) j.frames += frames_between(in.frames, int(sp.id), t0, t1).size();
            jobs.push_back(j);
        };
        add(-1, s.measure_start_ns, s.measure_end_ns);
        if (s.windows.size() > 1)
            for (size_t w = 0; w < s.windows.size(); ++w) add(static_cast<int>(w), s.windows[w].start_ns, s.windows[w].end_ns);
    }
    std::sort(jobs.begin(), jobs.end(), [](const Job& x, const Job& y) { return x.frames > y.frames; });
    parallel_for(jobs.size(), in.threads, [&](size_t i) {
        const Job& j = jobs[i];
        StepAnalysis& s = steps[j.step];
        core::StepJudge judge;
        judge.target = s.target;
        judge.step_start_ns = s.started_ns;
        judge.shortfall = s.shortfall;
        judge.default_sla = in.default_sla;
        judge.sla_for = in.sla_for;
        judge.frames = [&](uint32_t id, int64_t t0, int64_t t1) {
            auto f = frames_between(in.frames, int(id), t0, t1);
            return std::vector<FrameRecord>(f.begin(), f.end());
        };
        if (in.endpoint)
            judge.endpoint = [&](uint32_t id) -> const core::EndpointSeries* {
                auto it = in.endpoint->find(int(id));
                return it == in.endpoint->end() ? nullptr : &it->second;
            };
        judge.gpu_memory = [&](int64_t t0, int64_t t1, double limit) {
            return core::check_gpu_memory(in.gpu_memory, t0, t1, limit);
        };
        auto v = core::judge_span(judge, spans, j.t0, j.t1);
        if (j.window < 0) s.verdict = std::move(v);
        else s.windows[static_cast<size_t>(j.window)].verdict = std::move(v);
    });

    for (auto& s : steps) {
        if (s.windows.empty()) {
            s.verdict.target = s.target;
            core::mark_not_measured(s.verdict, false);
            s.agrees = !s.stored || *s.stored == "fail";
            continue;
        }
        if (s.windows.size() == 1) s.windows[0].verdict = s.verdict;  // the same frames, judged once
        std::vector<core::StepVerdict> wv;
        for (const auto& w : s.windows) wv.push_back(w.verdict);
        core::fold_windows(s.verdict, wv);
        if (!s.measured) core::mark_not_measured(s.verdict, true);
        summarize_step(s);
    }
}

void summarize_step(StepAnalysis& s) {
    {
        s.gpu_mem_peak_pct = s.verdict.gpu_mem_peak_pct;
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
