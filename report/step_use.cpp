#include "report/step_use.h"

#include <algorithm>
#include <string>

namespace seatmark::report {

namespace {

// Mean and max of the samples with t in [t0, t1); count 0 when none.
struct Agg : WindowSum {
    double mean() const { return n ? sum / n : -1; }
};

Agg aggregate(const MetricSeries* series, int64_t t0, int64_t t1) { return Agg{window_sum(series, t0, t1)}; }

}  // namespace

// The metrics a report reads: host CPU, memory and GPU; per-session CPU, memory and GPU share,
// MangoHud's 1% Min FPS from each session's BYE;
// GPU memory (gpu_mem_* for one device, gpuN_mem_* per device when there are several).
bool wanted_metric(std::string_view m) {
    for (std::string_view w : {"host_cpu_pct", "gpu_util_pct", "host_mem_used_bytes", "cpu_pct", "rss_bytes", "gpu_share_pct",
                               "low1_fps", "low1_min_fps"})
        if (m == w) return true;
    return m.starts_with("gpu") && (m.ends_with("_mem_used_bytes") || m.ends_with("_mem_total_bytes"));
}

// GPU memory points as the orchestrator's GPU telemetry keeps them (gpu_memory_check.h).
std::vector<core::GpuMemoryPoint> gpu_memory_points(const SampleSet& samples) {
    // Each host's used and total paired with its own (a pool's hosts sample at their own instants).
    std::vector<core::GpuMemoryPoint> points;
    for (const std::string& host : samples.hosts()) {
        auto add = [&](const std::string& prefix, uint32_t device) {
            const MetricSeries* u = samples.get_host(prefix + "mem_used_bytes", host);
            const MetricSeries* t = samples.get_host(prefix + "mem_total_bytes", host);
            if (!u || !t) return u != nullptr;
            size_t j = 0;
            for (const auto& p : u->points) {
                while (j < t->points.size() && t->points[j].t_ns < p.t_ns) ++j;
                if (j < t->points.size() && t->points[j].t_ns == p.t_ns)
                    points.push_back({p.t_ns, device, p.value, t->points[j].value, u->source});
            }
            return true;
        };
        bool per_device = false;
        for (uint32_t d = 0; d < 64 && add("gpu" + std::to_string(d) + "_", d); ++d) per_device = true;
        if (!per_device) add("gpu_", 0);
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const core::GpuMemoryPoint& x, const core::GpuMemoryPoint& y) { return x.t_ns < y.t_ns; });
    return points;
}

void attach_use(std::vector<StepAnalysis>& steps, const SampleSet& samples) {
    // Samples: host-wide CPU, memory and GPU; per-session CPU, memory and GPU share.
    const MetricSeries* host_cpu = samples.get("host_cpu_pct");
    const MetricSeries* gpu_util = samples.get("gpu_util_pct");
    const MetricSeries* mem_used = samples.get("host_mem_used_bytes");
    const std::vector<std::string> hosts = samples.hosts();
    for (auto& s : steps) {
        if (s.windows.empty()) continue;
        Agg cpu = aggregate(host_cpu, s.measure_start_ns, s.measure_end_ns);
        s.host_cpu_mean_pct = cpu.mean();
        s.host_cpu_max_pct = cpu.max;
        Agg gpu = aggregate(gpu_util, s.measure_start_ns, s.measure_end_ns);
        s.gpu_util_mean_pct = gpu.mean();
        if (gpu.n) s.gpu_source = gpu_util->source;
        s.mem_used_max_bytes = aggregate(mem_used, s.measure_start_ns, s.measure_end_ns).max;
        if (hosts.size() > 1)
            for (const std::string& h : hosts) {
                HostUse u;
                u.host = h;
                Agg c = aggregate(samples.get_host("host_cpu_pct", h), s.measure_start_ns, s.measure_end_ns);
                u.cpu_mean_pct = c.mean();
                u.cpu_max_pct = c.max;
                const MetricSeries* g = samples.get_host("gpu_util_pct", h);
                u.gpu_util_mean_pct = aggregate(g, s.measure_start_ns, s.measure_end_ns).mean();
                if (u.gpu_util_mean_pct >= 0) u.gpu_source = g->source;
                u.mem_used_max_bytes =
                    aggregate(samples.get_host("host_mem_used_bytes", h), s.measure_start_ns, s.measure_end_ns).max;
                s.host_use.push_back(std::move(u));
            }
        double sum = 0, gsum = 0;
        int n = 0, gn = 0;
        for (const auto& f : s.verdict.sessions) {
            SessionUse u;
            const int id = static_cast<int>(f.id);
            u.cpu_pct = aggregate(samples.get("cpu_pct", id), s.measure_start_ns, s.measure_end_ns).mean();
            u.rss_max_bytes = aggregate(samples.get("rss_bytes", id), s.measure_start_ns, s.measure_end_ns).max;
            if (const MetricSeries* g = samples.get("gpu_share_pct", id)) {
                u.gpu_share_pct = aggregate(g, s.measure_start_ns, s.measure_end_ns).mean();
                u.gpu_share_source = g->source;
            }
            if (u.cpu_pct >= 0) {
                sum += u.cpu_pct;
                ++n;
            }
            if (u.gpu_share_pct >= 0) {
                gsum += u.gpu_share_pct;
                ++gn;
                s.gpu_share_source = u.gpu_share_source;
            }
            s.use[f.id] = u;
        }
        s.session_cpu_mean_pct = n ? sum / n : -1;
        s.gpu_share_mean_pct = gn ? gsum / gn : -1;
    }

}

}  // namespace seatmark::report
