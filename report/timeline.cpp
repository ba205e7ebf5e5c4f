#include "report/timeline.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <span>

#include "core/stats.h"
#include "report/parallel.h"

namespace seatmark::report {

namespace {

void fill_heat_row(HeatRow& row, std::span<const FrameRecord> frames, int64_t t0, int64_t bin_ns, size_t bins,
                   std::vector<double>& scratch) {
    row.p95_ms.assign(bins, NAN);
    size_t cur = SIZE_MAX;
    auto flush = [&] {
        if (cur < bins && !scratch.empty()) row.p95_ms[cur] = static_cast<float>(stats::percentile_nearest_rank(scratch, 95));
        scratch.clear();
    };
    for (const auto& f : frames) {
        if (f.interval_ns < 0 || f.t_begin_ns < t0) continue;
        size_t b = static_cast<size_t>((f.t_begin_ns - t0) / bin_ns);
        if (b >= bins) break;
        if (b != cur) {
            flush();
            cur = b;
        }
        scratch.push_back(double(f.interval_ns) * 1e-6);
    }
    flush();
}

}  // namespace

void set_time_span(RunAnalysis& a, const FrameMap& frames, const SampleSet& samples) {
    a.t0_ns = a.run.mono_origin_ns;
    int64_t first = INT64_MAX, last = INT64_MIN;
    auto see = [&](int64_t t) {
        first = std::min(first, t);
        last = std::max(last, t);
    };
    for (const auto& s : a.steps) {
        see(s.started_ns);
        if (s.ended_ns) see(s.ended_ns);
    }
    for (const auto& s : a.sessions) {
        see(s.started_ns);
        if (s.ended_ns) see(*s.ended_ns);
    }
    for (const auto& [id, v] : frames)
        if (!v.empty()) see(v.back().t_begin_ns);
    for (const std::string& h : samples.hosts())
        if (const MetricSeries* cpu = samples.get_host("host_cpu_pct", h)) see(cpu->points.back().t_ns);
    if (first == INT64_MAX) first = last = a.t0_ns;
    if (a.t0_ns <= 0 || a.t0_ns > first) a.t0_ns = first;
    a.t1_ns = std::max(last, a.t0_ns + 1'000'000'000);
}

void build_heatmap(RunAnalysis& a, const FrameMap& frames, int bins_wanted, int threads) {
    const size_t bins = static_cast<size_t>(std::max(1, bins_wanted));
    a.heat.t0 = a.t0_ns;
    a.heat.bin_ns = std::max<int64_t>(1'000'000, (a.t1_ns - a.t0_ns + int64_t(bins) - 1) / int64_t(bins));
    a.heat.rows.resize(a.sessions.size());
    parallel_for(a.sessions.size(), threads, [&](size_t i) {
        const auto& s = a.sessions[i];
        HeatRow& row = a.heat.rows[i];
        row.session_id = static_cast<uint32_t>(s.id);
        row.profile = s.profile;
        row.host = a.host_label(s.host);
        row.started_ns = s.started_ns;
        auto it = frames.find(s.id);
        int64_t last_frame = (it != frames.end() && !it->second.empty()) ? it->second.back().t_begin_ns : s.started_ns;
        row.ended_ns = s.ended_ns ? *s.ended_ns : std::max(last_frame, a.t1_ns);
        if (store::is_failure(s.end_reason)) row.failure = std::string(store::to_string(s.end_reason));
        std::vector<double> scratch;
        fill_heat_row(row, it != frames.end() ? std::span<const FrameRecord>(it->second) : std::span<const FrameRecord>(),
                      a.heat.t0, a.heat.bin_ns, bins, scratch);
    });
}

void build_host_series(RunAnalysis& a, const SampleSet& samples) {
    // A line per host and metric: hosts' figures are never averaged into one line.
    const std::vector<std::string> hosts = samples.hosts();
    for (const std::string& h : hosts)
        for (const char* metric : {"host_cpu_pct", "gpu_util_pct"}) {
            const MetricSeries* m = samples.get_host(metric, h);
            if (!m) continue;
            const bool cpu = std::string_view(metric) == "host_cpu_pct";
            std::string label = cpu ? "host CPU" : "GPU utilisation";
            if (hosts.size() > 1) label += " " + a.host_label(h);
            Series series{metric, m->source, label, "%", {}};
            series.points.reserve(m->points.size());
            for (const auto& p : m->points) series.points.push_back({a.seconds(p.t_ns), p.value});
            a.host_series.push_back(std::move(series));
        }
}

void build_marks(RunAnalysis& a, const std::vector<store::EventRow>& events) {
    for (const auto& s : a.sessions)
        if (store::is_failure(s.end_reason) && s.ended_ns)
            a.marks.push_back({a.seconds(*s.ended_ns), static_cast<uint32_t>(s.id),
                               std::string(store::to_string(s.end_reason)), s.detail});
    for (const auto& e : events) {
        bool trouble = e.kind == "run-abort" || e.kind == "connection-rejected" ||
                       (e.kind.size() > 6 && e.kind.ends_with("-error") && !e.session_id);
        if (trouble) a.marks.push_back({a.seconds(e.t_ns), std::nullopt, e.kind, e.detail});
    }
    std::stable_sort(a.marks.begin(), a.marks.end(), [](const Mark& x, const Mark& y) { return x.t_s < y.t_s; });
}

}  // namespace seatmark::report
