#include "report/pool_judge.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <future>
#include <map>

#include "core/pool_rules.h"
#include "report/sample_scan.h"
#include "report/step_use.h"

namespace seatmark::report {

namespace {

// What merge and the live coordinator say of a host lost before a span was judged
// (store/merge.cpp write_pool_verdicts): the pool did not pass it.
std::string lost_reason(const std::string& host) { return host + ": lost before this span was judged"; }

size_t hs_index(const RunAnalysis& a, int idx) {
    for (size_t i = 0; i < a.steps.size(); ++i)
        if (a.steps[i].idx == idx) return i;
    return 0;
}

bool lost_by(const store::HostRow& h, int step_idx) { return h.lost && h.lost_step && *h.lost_step <= step_idx; }

// One host's steps as judge_steps reads them: the run's steps, each window over the host's own
// span where its verdict rows give one; no windows where the host was lost by then.
std::vector<StepAnalysis> host_skeleton(const RunAnalysis& a, const store::HostRow& h,
                                        const std::vector<store::VerdictRow>& rows,
                                        const std::vector<core::SessionSpan>& spans) {
    std::map<std::pair<int, int>, const store::VerdictRow*> by_span;
    for (const auto& r : rows) by_span[{r.step_idx, r.repeat}] = &r;
    std::vector<StepAnalysis> out;
    for (const StepAnalysis& s : a.steps) {
        StepAnalysis x;
        x.idx = s.idx;
        x.started_ns = s.started_ns;
        x.ended_ns = s.ended_ns;
        // A scaling series runs a step on the first pool_hosts ranks: the others sit it out.
        const bool idle = core::sits_out(h.rank, int(s.pool_hosts));
        x.measured = s.measured && !lost_by(h, s.idx) && !idle;
        if (x.measured)
            for (const WindowAnalysis& w : s.windows) {
                WindowAnalysis y;
                y.repeat = w.repeat;
                y.start_ns = w.start_ns;
                y.end_ns = w.end_ns;
                if (auto it = by_span.find({s.idx, w.repeat}); it != by_span.end()) {
                    y.start_ns = it->second->t0_ns;
                    y.end_ns = it->second->t1_ns;
                }
                x.windows.push_back(y);
            }
        if (!x.windows.empty()) {
            x.measure_start_ns = x.windows.front().start_ns;
            x.measure_end_ns = x.windows.back().end_ns;
        }
        // Its target: what it stored; else the sessions it had at the step's end (every member).
        if (auto it = by_span.find({s.idx, store::pooled_repeat}); it != by_span.end()) {
            x.target = uint32_t(std::max(0, it->second->target_sessions));
            x.stored_verdict = *it->second;
        } else if (!s.windows.empty() && !idle) {  // also where it was lost: the sessions it had by then
            x.target = uint32_t(core::span_members(spans, x.started_ns, x.windows.empty() ? s.measure_end_ns : x.measure_end_ns).size());
        }
        out.push_back(std::move(x));
    }
    return out;
}

}  // namespace

std::vector<store::HostRow> pool_hosts(const std::vector<store::HostRow>& hosts,
                                       const std::vector<store::SessionRow>& sessions) {
    std::vector<store::HostRow> ranks, joined;
    for (const auto& h : hosts) {
        if (h.role != store::role_joined) ranks.push_back(h);
        else if (std::any_of(sessions.begin(), sessions.end(), [&h](const store::SessionRow& s) { return s.host == h.hostname; }))
            joined.push_back(h);
    }
    return joined.empty() ? ranks : joined;
}

void judge_pool(RunAnalysis& a, const store::StoreReader& reader, const JudgeInputs& in) {
    const std::vector<store::HostRow> hosts = pool_hosts(a.hosts, in.sessions);
    if (hosts.size() < 2) return;
    const bool joined = hosts.front().role == store::role_joined;
    // Every host's samples (its CPU and GPU memory) on their own: the merged file holds them side by side.
    std::vector<std::future<SampleSet>> samples;
    for (const auto& h : hosts)
        samples.push_back(std::async(std::launch::async, [&a, name = h.hostname] {
            return read_samples(a.db_path, [](std::string_view m) { return wanted_metric(m); }, name);
        }));
    PoolAnalysis& p = a.pool;
    for (size_t k = 0; k < hosts.size(); ++k) {
        const store::HostRow& h = hosts[k];
        std::vector<store::SessionRow> mine;
        for (const auto& s : in.sessions)
            if (s.host == h.hostname) mine.push_back(s);
        const std::vector<core::SessionSpan> spans = session_spans(mine);
        std::vector<StepAnalysis> steps = host_skeleton(a, h, reader.host_verdicts(h.hostname), spans);
        const SampleSet set = samples[k].get();
        judge_steps(steps, {mine, in.frames, in.sla_for, in.default_sla, gpu_memory_points(set), in.threads, in.endpoint});
        attach_use(steps, set);
        HostAnalysis ha;
        ha.host = h;
        ha.sessions = uint32_t(mine.size());
        for (const StepAnalysis& s : steps) {
            HostStep hs;
            hs.idx = s.idx;
            hs.target = s.target;
            hs.judged = !s.windows.empty() && s.measured;
            hs.lost_here = h.lost && h.lost_step && *h.lost_step == s.idx;
            hs.idle = core::sits_out(h.rank, int(a.steps[hs_index(a, s.idx)].pool_hosts));
            hs.verdict = s.verdict;
            for (const WindowAnalysis& w : s.windows) hs.windows.push_back(w.verdict);
            hs.stored = s.stored_verdict;
            if (hs.stored && hs.judged) hs.disagreements = verdict_differences(*hs.stored, hs.verdict);
            if (!s.windows.empty()) hs.window_start_ns = s.windows.front().start_ns;
            hs.host_cpu_mean_pct = s.host_cpu_mean_pct;
            ha.steps.push_back(std::move(hs));
        }
        p.hosts.push_back(std::move(ha));
    }

    // The pool's verdict of every span from the hosts' (core::pool_verdict), as the pool judged it.
    for (size_t i = 0; i < a.steps.size() && !joined; ++i) {
        StepAnalysis& s = a.steps[i];
        if (s.windows.empty()) continue;
        auto pool_of = [&](int window) {
            std::vector<core::HostVerdict> hv;
            std::vector<std::string> lost;
            for (const HostAnalysis& h : p.hosts) {
                const HostStep& hs = h.steps[i];
                if (!hs.judged) {
                    if (lost_by(h.host, s.idx) && !hs.idle) lost.push_back(lost_reason(h.host.hostname));
                    continue;
                }
                // The host's windows follow the run's one for one (host_skeleton).
                const core::StepVerdict& v = window < 0 ? hs.verdict : hs.windows.at(size_t(window));
                hv.push_back({h.host.hostname, v, v.sessions.size()});
            }
            core::StepVerdict v = core::pool_verdict(hv);
            for (auto& r : lost) {
                v.pass = false;
                v.reasons.push_back(std::move(r));
            }
            return v;
        };
        for (size_t w = 0; w < s.windows.size(); ++w) s.windows[w].verdict = pool_of(int(w));
        s.verdict = pool_of(-1);
        if (!s.measured) core::mark_not_measured(s.verdict, true);
        summarize_step(s);
    }
}

void summarize_pool(RunAnalysis& a) {
    PoolAnalysis& p = a.pool;
    if (!p.is_pool()) return;
    // Steps every host completed: up to the first step a host was lost in.
    p.complete_steps = a.steps.size();
    for (const HostAnalysis& h : p.hosts)
        if (h.host.lost && h.host.lost_step)
            for (size_t i = 0; i < a.steps.size(); ++i)
                if (a.steps[i].idx >= *h.host.lost_step) {
                    p.complete_steps = std::min(p.complete_steps, i);
                    break;
                }

    // Each host's own max density (its sessions per step), the first step it failed.
    for (HostAnalysis& h : p.hosts) {
        std::vector<core::StepPass> pass;
        std::vector<size_t> index;
        for (size_t i = 0; i < h.steps.size(); ++i) {
            const HostStep& hs = h.steps[i];
            if (!h.first_fail_step && ((hs.judged && !hs.verdict.pass) || hs.lost_here)) h.first_fail_step = i;
            if (!a.in_main_ramp(i)) continue;  // a scaling series: its own figures on the whole pool's ramp
            pass.push_back({hs.target, hs.judged && hs.verdict.pass});
            index.push_back(i);
        }
        const core::MaxDensity d = core::max_density(pass);
        h.max_density = d.sessions;
        h.max_density_step = d.step ? std::optional<size_t>(index[*d.step]) : std::nullopt;
    }

    // Which host failed first and why: the earliest step any host failed in (or was lost in);
    // within it, the first host in rank order.
    for (size_t i = 0; i < a.steps.size() && !p.first_failure; ++i)
        for (const HostAnalysis& h : p.hosts) {
            if (!h.first_fail_step || *h.first_fail_step != i) continue;
            if (p.first_failure) {
                p.first_failure->also.push_back(h.host.hostname);
                continue;
            }
            const HostStep& hs = h.steps[i];
            PoolAnalysis::FirstFailure f;
            f.host = h.host.hostname;
            f.step = i;
            f.pool_sessions = a.steps[i].target;
            f.host_sessions = hs.target;
            if (hs.lost_here) f.reason = "lost" + (h.host.lost_detail ? ": " + *h.host.lost_detail : std::string());
            else f.reason = hs.verdict.reasons.empty() ? "failed" : hs.verdict.reasons.front();
            p.first_failure = f;
        }

    // Fairness over hosts in the pool's max-density step, else the last step every host completed.
    std::optional<size_t> fs;
    if (a.max_density_step && *a.max_density_step < p.complete_steps) fs = a.max_density_step;
    for (size_t i = p.complete_steps; !fs && i-- > 0;)
        if (!a.steps[i].windows.empty() && a.steps[i].measured) fs = i;
    if (fs) {
        std::vector<double> fps;
        for (HostAnalysis& h : p.hosts) {
            const HostStep& hs = h.steps[*fs];
            h.median_fps = hs.judged && hs.verdict.frames > 0 ? hs.verdict.fps_median : NAN;
            if (std::isfinite(h.median_fps)) fps.push_back(h.median_fps);
        }
        p.fairness_step = fs;
        if (fps.size() == p.hosts.size()) p.fairness = core::host_fairness(fps);
    }

    // Window skew: every host's own window starts against the run's, in the run's time base.
    for (const HostAnalysis& h : p.hosts)
        for (size_t i = 0; i < h.steps.size(); ++i) {
            const HostStep& hs = h.steps[i];
            if (!hs.stored || !hs.window_start_ns || a.steps[i].windows.empty()) continue;
            const int64_t d = std::llabs(*hs.window_start_ns - a.steps[i].windows.front().start_ns);
            p.window_skew_ns = std::max(p.window_skew_ns.value_or(0), d);
        }

    // E(H) of a [scaling] series: each pool size's ramp (consecutive steps of one pool_hosts) by
    // core::max_density over the steps every host completed, against the one-host ramp's.
    std::map<uint32_t, std::vector<core::StepPass>> ramps;
    for (size_t i = 0; i < p.complete_steps; ++i)
        ramps[a.steps[i].pool_hosts].push_back(
            {a.steps[i].target, a.steps[i].measured && !a.steps[i].windows.empty() && a.steps[i].verdict.pass});
    if (ramps.size() > 1 || (ramps.size() == 1 && ramps.begin()->first == 1)) {
        const auto one = ramps.find(1);
        const uint32_t single = one == ramps.end() ? 0 : core::max_density(one->second).sessions;
        for (const auto& [hosts, steps] : ramps) {
            const uint32_t m = core::max_density(steps).sessions;
            p.scaling.push_back({hosts, m, one == ramps.end() ? NAN : core::scaling_efficiency(m, hosts, single), false});
        }
        return;
    }
    // Without one: the pool's max density over the steps every host completed, against the best
    // host's own max density as the one-host figure.
    std::vector<core::StepPass> pass;
    for (size_t i = 0; i < p.complete_steps; ++i)
        pass.push_back({a.steps[i].target, a.steps[i].measured && !a.steps[i].windows.empty() && a.steps[i].verdict.pass});
    const uint32_t pooled = core::max_density(pass).sessions;
    uint32_t best = 0;
    for (const HostAnalysis& h : p.hosts) best = std::max(best, h.max_density);
    const uint32_t n = uint32_t(p.hosts.size());
    p.scaling.push_back({1, best, best ? 1.0 : NAN, true});
    p.scaling.push_back({n, pooled, core::scaling_efficiency(pooled, n, best), true});
}

}  // namespace seatmark::report
