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
#include "report/sample_scan.h"
#include "report/step_judge.h"
#include "report/step_use.h"
#include "report/stored_plan.h"
#include "report/timeline.h"

namespace seatmark::report {

bool is_failure(store::SessionEnd e) {
    using store::SessionEnd;
    return e != SessionEnd::ok && e != SessionEnd::killed && e != SessionEnd::running;
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
            StepResult s;
            s.idx = row.idx;
            s.target = static_cast<uint32_t>(row.target_sessions);
            s.started_ns = row.started_ns;
            s.measured = true;
            a.steps.push_back(std::move(s));
        }
        StepResult& s = a.steps.back();
        if (!row.window_start_ns || !row.window_end_ns) {
            s.measured = false;  // the run ended inside this window
            continue;
        }
        WindowResult w;
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

// The orchestrator's own pooled step verdict, where it recorded one as an event:
// "step 3 (4 sessions): pass" / "step 3 (4 sessions): fail: <reason>".
void read_step_verdict_events(RunAnalysis& a, const std::vector<store::EventRow>& events) {
    for (const auto& e : events) {
        if (e.kind != "step-verdict" || !e.detail.starts_with("step ")) continue;
        const int n = std::atoi(e.detail.c_str() + 5);
        for (auto& s : a.steps)
            if (s.idx == n - 1 && !s.windows.empty()) {
                if (e.detail.find("): pass") != std::string::npos) s.stored = "pass";
                else if (e.detail.find("): fail") != std::string::npos) s.stored = "fail";
                s.agrees = !s.stored || (*s.stored == "pass") == s.verdict.pass;
            }
    }
}

// Max density: the last step such that it and every step below it passed. The knee: the
// first step whose p95 (median over sessions) exceeds the first step's by the plan's margin.
void find_density_and_knee(RunAnalysis& a) {
    for (size_t k = 0; k < a.steps.size(); ++k) {
        if (!a.steps[k].measured || !a.steps[k].verdict.pass) break;
        a.max_density = a.steps[k].target;
        a.max_density_step = k;
    }
    a.knee.margin_pct = a.knee_margin_pct;
    if (a.steps.empty() || a.steps[0].windows.empty()) return;
    const double base = a.steps[0].verdict.p95_median_ms;
    if (!std::isfinite(base) || base <= 0) return;
    a.knee.has_baseline = true;
    a.knee.baseline_ms = base;
    a.knee.threshold_ms = base * (1 + a.knee_margin_pct / 100);
    for (size_t k = 1; k < a.steps.size(); ++k)
        if (!a.steps[k].windows.empty() && std::isfinite(a.steps[k].verdict.p95_median_ms) &&
            a.steps[k].verdict.p95_median_ms > a.knee.threshold_ms) {
            a.knee.step = k;
            break;
        }
}

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
    const int threads = opts.threads > 0 ? opts.threads : std::clamp(int(std::thread::hardware_concurrency()), 1, 4);
    find_devices(a);
    read_steps(a, reader.steps());

    // Every frame once, and beside it (its own connection) the samples.
    FrameScanOptions fso;
    fso.threads = threads;
    fso.progress = opts.progress;
    for (const auto& s : a.sessions)
        if (s.frames_received > 0) fso.expected[s.id] = static_cast<uint64_t>(s.frames_received);
    auto samples_read = std::async(std::launch::async, [&] { return read_samples(db_path, wanted_metric); });
    const FrameMap frames = scan_frames(db_path, fso);
    const SampleSet samples = samples_read.get();
    for (const auto& [id, v] : frames) a.frames += v.size();

    judge_steps(a.steps, {a.sessions, frames, [&a](const std::string& p) -> const Sla& { return a.sla_for(p); },
                          a.default_sla, gpu_memory_points(samples), threads});
    const auto events = reader.events();
    read_step_verdict_events(a, events);
    find_density_and_knee(a);
    attach_use(a.steps, samples);

    set_time_span(a, frames, samples);
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
