#include "report/analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <future>
#include <thread>

#include "common/errors.h"
#include "store/sqlite_handle.h"
#include "store/store_reader.h"
#include "report/frame_scan.h"
#include "report/host_roster.h"
#include "report/pool_judge.h"
#include "report/sample_scan.h"
#include "report/step_attribution.h"
#include "report/step_judge.h"
#include "report/step_use.h"
#include "report/stored_plan.h"
#include "report/timeline.h"

namespace seatmark::report {

bool RunAnalysis::in_main_ramp(size_t step) const {
    uint32_t largest = 0;
    for (const auto& s : steps) largest = std::max(largest, s.pool_hosts);
    return largest == 0 || steps.at(step).pool_hosts == largest;
}

bool RunAnalysis::sessions_on_several_hosts() const {
    for (const auto& s : sessions)
        if (host_label(s.host) != host_label(sessions.front().host)) return true;
    return false;
}

const Sla& RunAnalysis::sla_for(const std::string& profile) const {
    auto it = sla.find(profile);
    return it == sla.end() ? default_sla : it->second;
}

namespace {

void find_devices(RunAnalysis& a) {
    for (const auto& s : a.sessions) {
        const auto& d = s.device;
        auto it = std::find_if(a.devices.begin(), a.devices.end(), [&](const DeviceUse& u) {
            return u.device_name == d.device_name && u.device_type == d.device_type && u.driver_name == d.driver_name &&
                   u.driver_info == d.driver_info && u.software == d.software;
        });
        if (it == a.devices.end())
            a.devices.push_back({d.device_name, d.device_type, d.driver_name, d.driver_info, d.software, 1});
        else
            ++it->sessions;
        a.any_software |= d.software;
    }
}

// Steps from their rows (one per measurement window), with the verdicts the orchestrator stored.
void read_steps(RunAnalysis& a, const std::vector<store::StepRow>& rows) {
    for (const auto& row : rows) {
        if (a.steps.empty() || a.steps.back().idx != row.idx) {
            StepAnalysis s;
            s.idx = row.idx;
            s.target = static_cast<uint32_t>(row.target_sessions);
            s.pool_hosts = static_cast<uint32_t>(std::max(0, row.pool_hosts.value_or(0)));
            s.started_ns = row.started_ns;
            s.shortfall = row.shortfall;
            s.measured = true;
            a.steps.push_back(std::move(s));
        }
        StepAnalysis& s = a.steps.back();
        if (!row.window_start_ns || !row.window_end_ns) {
            s.measured = false;  // the run ended inside this window
            continue;
        }
        WindowAnalysis w;
        w.repeat = row.repeat;
        w.start_ns = *row.window_start_ns;
        w.end_ns = *row.window_end_ns;
        w.stored = row.verdict;
        w.stored_detail = row.detail;
        s.ended_ns = std::max({s.ended_ns, w.end_ns, row.ended_ns.value_or(0)});
        s.windows.push_back(std::move(w));
    }
    for (auto& s : a.steps) {
        if (s.windows.empty()) {
            s.measured = false;
            continue;
        }
        s.measure_start_ns = s.windows.front().start_ns;
        s.measure_end_ns = s.windows.back().end_ns;
        bool any_fail = false, all_pass = true;
        for (const auto& w : s.windows) {
            any_fail |= w.stored == "fail";
            all_pass &= w.stored == "pass";
        }
        if (any_fail) s.stored = "fail";
        else if (all_pass && s.measured) s.stored = "pass";
    }
}

// A pool row that `seatmark merge` combined from the hosts' rows has no medians over the pool's
// sessions (core::pool_verdict leaves them NaN without every session's figures): those are not
// compared.
core::StepVerdict pool_as_stored(const RunAnalysis& a, const store::VerdictRow& row, core::StepVerdict v) {
    if (!a.pool.is_pool()) return v;
    if (std::isnan(row.fps_median)) v.fps_median = NAN;
    if (std::isnan(row.p95_median_ms)) v.p95_median_ms = NAN;
    if (std::isnan(row.fairness)) v.fairness = NAN;
    return v;
}

// The verdict rows the orchestrator stored, beside the recomputed ones: the step's pooled row
// decides its stored pass/fail, and every figure and reason must agree.
void compare_stored_verdicts(RunAnalysis& a, const std::vector<store::VerdictRow>& rows) {
    for (const auto& row : rows)
        for (auto& s : a.steps) {
            if (s.idx != row.step_idx) continue;
            if (row.repeat == store::pooled_repeat) {
                s.stored_verdict = row;
                s.stored = row.pass ? "pass" : "fail";
            } else {
                for (auto& w : s.windows)
                    if (w.repeat == row.repeat) w.stored_verdict = row;
            }
        }
    // An MPI pool's step rows hold the reference host's own verdict, not the pool's (that is the
    // pooled verdict row): without one there is nothing stored to compare the pool's against.
    const bool mpi_pool = a.pool.is_pool() && a.pool.hosts.front().host.role != store::role_joined;
    for (auto& s : a.steps) {
        if (!s.stored_verdict) {
            if (mpi_pool) s.stored.reset();
            s.agrees = !s.stored || (*s.stored == "pass") == s.verdict.pass;
            continue;
        }
        s.disagreements = verdict_differences(*s.stored_verdict, pool_as_stored(a, *s.stored_verdict, s.verdict));
        for (const auto& w : s.windows)
            if (w.stored_verdict)
                for (const auto& d : verdict_differences(*w.stored_verdict, pool_as_stored(a, *w.stored_verdict, w.verdict)))
                    s.disagreements.push_back("window " + std::to_string(w.repeat + 1) + ": " + d);
        s.agrees = s.disagreements.empty();
    }
}

// An adaptive search replayed: each step a probe, decided from its windows by core's rule.
void replay_search(RunAnalysis& a, const core::SearchPlan& plan) {
    SearchReport& r = a.search;
    r.adaptive = true;
    r.config = {plan.min, plan.max, plan.resolution};
    r.max_repeats = plan.max_repeats;
    core::DensitySearch search(r.config);
    std::vector<core::ProbeTimes> times;
    auto sla = [&a](const std::string& p) -> const Sla& { return a.sla_for(p); };
    for (size_t i = 0; i < a.steps.size(); ++i) {
        const StepAnalysis& s = a.steps[i];
        if (!s.measured) break;  // the run ended inside it
        std::vector<core::StepVerdict> w;
        for (const auto& x : s.windows) w.push_back(x.verdict);
        core::Probe p;
        p.step = i;
        p.sessions = s.target;
        p.started_ns = s.started_ns;
        p.ended_ns = s.ended_ns;
        p.decision = core::decide_probe(w, sla, a.repeats, plan.max_repeats);
        if (p.decision.state == core::ProbeState::more) p.decision.state = core::ProbeState::undecided;
        core::ProbeTimes t{s.started_ns, s.measure_start_ns, s.ended_ns, int(s.windows.size()), 0};
        for (const auto& x : s.windows) t.window_s += double(x.end_ns - x.start_ns) * 1e-9 / double(s.windows.size());
        times.push_back(t);
        search.record(std::move(p));
    }
    r.probes = search.probes();
    r.answer = search.answer();
    r.time = core::machine_time(r.config, r.answer, times, a.repeats);
    a.max_density = r.answer.max_density;
    a.max_density_step = r.answer.step;
}

// Max density and the knee, by core's rules.
void find_density_and_knee(RunAnalysis& a) {
    // A scaling series: the largest pool size's ramp (its steps are consecutive) is the answer.
    std::vector<core::StepPass> pass;
    std::vector<double> p95;
    std::vector<uint32_t> sessions;
    std::vector<size_t> index;
    for (size_t i = 0; i < a.steps.size(); ++i) {
        if (!a.in_main_ramp(i)) continue;
        const auto& s = a.steps[i];
        sessions.push_back(s.target);
        pass.push_back({s.target, s.measured && s.verdict.pass});
        p95.push_back(s.windows.empty() ? NAN : s.verdict.p95_median_ms);
        index.push_back(i);
    }
    const core::MaxDensity d = core::max_density(pass);
    a.max_density = d.sessions;
    a.max_density_step = d.step ? std::optional<size_t>(index[*d.step]) : std::nullopt;
    a.knee = core::find_knee(sessions, p95, a.knee_margin_pct);
    if (a.knee.step) a.knee.step = index[*a.knee.step];
}

}  // namespace

std::vector<std::string> verdict_differences(const store::VerdictRow& r, const core::StepVerdict& v) {
    std::vector<std::string> out;
    auto num = [&out](const char* name, double stored, double recomputed) {
        if (std::isnan(stored) && std::isnan(recomputed)) return;
        if (stored != recomputed)
            out.push_back(std::string(name) + ": stored " + std::to_string(stored) + ", recomputed " +
                          std::to_string(recomputed));
    };
    if (r.pass != v.pass)
        out.push_back(std::string("verdict: stored ") + (r.pass ? "pass" : "fail") + ", recomputed " +
                      (v.pass ? "pass" : "fail"));
    num("sessions", double(r.sessions), double(v.sessions.size()));
    num("failures", double(r.failures), double(v.failures));
    num("frames", double(r.frames), double(v.frames));
    num("dropped", double(r.dropped), double(v.dropped));
    num("fps_median", r.fps_median, v.fps_median);
    num("fps_min", r.fps_min, v.fps_min);
    num("fps_max", r.fps_max, v.fps_max);
    num("p95_median_ms", r.p95_median_ms, v.p95_median_ms);
    num("p95_worst_ms", r.p95_worst_ms, v.p95_worst_ms);
    num("low1_worst_fps", r.low1_worst_fps, v.low1_worst_fps);
    num("latency_p95_worst_ms", r.latency_p95_worst_ms, v.latency_p95_worst_ms);
    num("stutter_worst", r.stutter_worst, v.stutter_worst);
    num("fairness", r.fairness, v.fairness);
    num("gpu_mem_peak_pct", r.gpu_mem_peak_pct, v.gpu_mem_peak_pct);
    if (r.reasons != v.reasons) {
        auto join = [](const std::vector<std::string>& x) {
            std::string t;
            for (const auto& s : x) t += (t.empty() ? "" : " | ") + s;
            return "[" + t + "]";
        };
        out.push_back("reasons: stored " + join(r.reasons) + ", recomputed " + join(v.reasons));
    }
    return out;
}

namespace {

RunAnalysis analyze_impl(const std::string& db_path, const AnalyzeOptions& opts) {
    RunAnalysis a;
    a.db_path = db_path;
    store::StoreReader reader(db_path);  // validates the file: InputError naming it
    a.run = reader.run();
    a.status = reader.effective_status();
    a.status_text = store::describe(a.status);
    a.hosts = reader.hosts();
    a.sessions = reader.sessions();
    StoredPlan plan = read_stored_plan(a.run.plan_text, db_path);
    a.plan_name = plan.name;
    a.plan_note = plan.note;
    a.default_sla = plan.default_sla;
    a.sla = plan.sla;
    a.knee_margin_pct = plan.knee_margin_pct;
    a.planned_steps = plan.steps;
    a.repeats = plan.repeats;
    a.host_per_hour = plan.host_per_hour;
    a.currency = plan.currency;
    const int threads = opts.threads > 0 ? opts.threads : std::clamp(int(std::thread::hardware_concurrency()), 1, 4);
    find_devices(a);
    read_steps(a, reader.steps());
    {
        // What the plan placed per step and rank: a lost host's share is known without its file.
        std::vector<std::optional<int>> pool_hosts;
        for (const auto& st : a.steps)
            if (st.idx >= 0 && st.idx < 100000) {
                pool_hosts.resize(std::max(pool_hosts.size(), size_t(st.idx) + 1));
                if (st.pool_hosts > 0) pool_hosts[size_t(st.idx)] = int(st.pool_hosts);
            }
        uint32_t ranks = 0;
        for (const auto& h : a.hosts) ranks += h.rank && h.role != store::role_joined ? 1 : 0;
        if (ranks > 1) a.planned_pool = core::planned_pool_steps(a.run.plan_text, "plan stored in " + db_path, pool_hosts, ranks);
    }

    // Every frame once, and beside it (its own connection) the samples.
    FrameScanOptions fso;
    fso.threads = threads;
    fso.progress = opts.progress;
    for (const auto& s : a.sessions)
        if (s.frames_received > 0) fso.expected[s.id] = static_cast<uint64_t>(s.frames_received);
    auto samples_read = std::async(std::launch::async, [&] { return read_samples(db_path, [](std::string_view m) { return wanted_metric(m) || attribution_metric(m); }); });
    const FrameMap frames = scan_frames(db_path, fso);
    SampleSet samples = samples_read.get();
    // A joined run: the controller's own samples never stand for the hosts its sessions ran on.
    if (joined_run(a.hosts)) keep_session_hosts_only(samples, a.sessions);
    for (const auto& [id, v] : frames) a.frames += v.size();

    a.endpoint_logons = reader.endpoint_logons();
    a.endpoint = reader.endpoint_series();
    const JudgeInputs judge{a.sessions, frames, [&a](const std::string& p) -> const Sla& { return a.sla_for(p); },
                            a.default_sla, gpu_memory_points(samples), threads, &a.endpoint};
    judge_steps(a.steps, judge);
    judge_pool(a, reader, judge);
    compare_stored_verdicts(a, reader.verdicts());
    a.stored_max_density = a.run.max_density;
    a.search.adaptive = plan.search.adaptive;
    find_density_and_knee(a);
    if (plan.search.adaptive) replay_search(a, plan.search);
    summarize_pool(a);
    const auto events = reader.events();
    attach_use(a.steps, samples);
    attribute_steps(a, samples);
    for (const char* metric : {"low1_fps", "low1_min_fps"})
        if (auto it = samples.metrics.find(metric); it != samples.metrics.end())
            for (const auto& [id, series] : it->second) {
                if (id == host_wide || series.points.empty() || series.source != "bye") continue;
                auto& lows = a.bye_lows[id];
                (std::string_view(metric) == "low1_fps" ? lows.low1_fps : lows.low1_min_fps) = series.points.back().value;
            }

    set_time_span(a, frames, samples);
    build_host_roster(a, samples, events);  // after the time span: it says when a host's figures ended
    build_host_series(a, samples);
    build_marks(a, events);
    build_heatmap(a, frames, opts.heat_bins, threads);
    return a;
}

}  // namespace

RunAnalysis analyze(const std::string& db_path, const AnalyzeOptions& options) {
    try {
        return analyze_impl(db_path, options);
    } catch (const store::StoreError& e) {
        // Reading failed half-way: a damaged or truncated file is bad input, not a crash.
        throw InputError(std::string(e.what()) + " (expected a complete seatmark run database)");
    }
}

}  // namespace seatmark::report
