#include "report/step_attribution.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/stats.h"
#include "report/host_roster.h"

namespace seatmark::report {

namespace {

struct Agg : WindowSum {
    std::optional<double> mean() const { return n ? std::optional<double>(sum / n) : std::nullopt; }
    std::optional<double> peak() const { return n ? std::optional<double>(max) : std::nullopt; }
};

Agg aggregate(const MetricSeries* series, int64_t t0, int64_t t1) { return Agg{window_sum(series, t0, t1)}; }

std::optional<double> median_of(std::vector<double> v) {
    if (v.empty()) return std::nullopt;
    return stats::median(v);
}

core::StepResources resources(const RunAnalysis& a, const StepAnalysis& s, const SampleSet& samples) {
    core::StepResources r;
    const int64_t t0 = s.measure_start_ns, t1 = s.measure_end_ns;
    r.sessions = s.target;
    for (const auto& f : s.verdict.sessions)
        for (const auto& row : a.sessions)
            if (row.id == int(f.id) && row.device.software) r.software_renderer = true;
    if (const MetricSeries* g = samples.get("gpu_util_pct")) r.gpu_source = g->source;
    else if (const MetricSeries* m = samples.get("gpu_mem_used_bytes")) r.gpu_source = m->source;
    r.gpu_engine_pct = aggregate(samples.get("gpu_util_pct"), t0, t1).mean();
    if (s.gpu_mem_peak_pct >= 0) r.gpu_mem_pct = s.gpu_mem_peak_pct;
    r.gpu_mem_bw_pct = aggregate(samples.get("gpu_mem_util_pct"), t0, t1).mean();
    r.enc_pct = aggregate(samples.get("gpu_enc_pct"), t0, t1).mean();
    r.dec_pct = aggregate(samples.get("gpu_dec_pct"), t0, t1).mean();
    r.host_cpu_pct = aggregate(samples.get("host_cpu_pct"), t0, t1).mean();
    for (int c = 0; c < 4096; ++c) {
        const MetricSeries* m = samples.get("core" + std::to_string(c) + "_cpu_pct");
        if (!m) break;
        auto v = aggregate(m, t0, t1).mean();
        if (v && (!r.busiest_core_pct || *v > *r.busiest_core_pct)) {
            r.busiest_core_pct = v;
            r.busiest_core = c;
        }
    }
    r.run_queue = aggregate(samples.get("host_run_queue"), t0, t1).mean();
    if (const store::HostRow* h = measured_host(a)) {  // a joined run's: its sessions' host, never the controller
        r.cpu_count = static_cast<uint32_t>(std::max<int64_t>(0, h->cpu_count));
        r.cpu_capacity = h->cpu_capacity.value_or(0);
        r.cpu_capacity_note = h->cpu_capacity_note;
        const double total = double(h->mem_total_bytes);
        if (total > 0 && s.mem_used_max_bytes >= 0) r.host_mem_pct = 100.0 * s.mem_used_max_bytes / total;
    }
    double max_cpu = -1;
    for (const auto& [id, u] : s.use) max_cpu = std::max(max_cpu, u.cpu_pct);
    if (s.session_cpu_mean_pct >= 0) {
        r.session_cpu_mean_pct = s.session_cpu_mean_pct;
        r.session_cpu_max_pct = max_cpu;
    }
    std::vector<double> cpu, gpu, iv;
    for (const auto& f : s.verdict.sessions) {
        if (f.summary.frames == 0) continue;
        if (std::isfinite(f.summary.cpu_p50_ms)) cpu.push_back(f.summary.cpu_p50_ms);
        if (std::isfinite(f.summary.gpu_p50_ms) && f.summary.gpu_p50_ms >= 0) gpu.push_back(f.summary.gpu_p50_ms);
        if (std::isfinite(f.summary.p50_ms)) iv.push_back(f.summary.p50_ms);
    }
    r.cpu_ms = median_of(cpu);
    r.gpu_ms = median_of(gpu);
    r.interval_ms = median_of(iv);
    return r;
}

}  // namespace

bool attribution_metric(std::string_view m) {
    for (std::string_view w : {"gpu_mem_util_pct", "gpu_enc_pct", "gpu_dec_pct", "host_run_queue"})
        if (m == w) return true;
    return m.starts_with("core") && m.ends_with("_cpu_pct");
}

void attribute_steps(RunAnalysis& a, const SampleSet& samples) {
    for (auto& s : a.steps)
        if (!s.windows.empty()) s.attribution = core::attribute(resources(a, s, samples));
    a.bottleneck_step.reset();
    // Where something ran out: the first measured step above max density; else the last measured one.
    for (size_t i = 0; i < a.steps.size(); ++i) {
        if (a.steps[i].windows.empty()) continue;
        if (!a.bottleneck_step || a.steps[i].target <= a.max_density) a.bottleneck_step = i;
        if (a.steps[i].target > a.max_density) {
            a.bottleneck_step = i;
            break;
        }
    }
}

}  // namespace seatmark::report
