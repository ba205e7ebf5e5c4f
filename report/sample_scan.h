#pragma once
// Reads the sampler time series a report needs from a run database in one sequential pass
// over the samples table (no index lookups, which cost a random seek per row), keeping only
// the metrics asked for, grouped by metric and session and ordered by time.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seatmark::report {

struct MetricPoint {
    int64_t t_ns = 0;
    double value = 0;
};

struct MetricSeries {
    std::string source;               // the sampler ('proc', 'nvml', 'drm', 'software'): of the first row
    std::vector<MetricPoint> points;  // by time
};

// Sum, max and count of a series' samples with t in [t0, t1) (count 0, max -1 when none): the one
// window scan that step_use and step_attribution build their figures on.
struct WindowSum {
    double sum = 0, max = -1;
    int n = 0;
};
WindowSum window_sum(const MetricSeries* series, int64_t t0, int64_t t1);

inline constexpr int host_wide = -1;  // the key of host-wide samples (session_id NULL)

struct SampleSet {
    // metric -> session id -> series. Host-wide samples (session_id NULL) are here under
    // host_wide only when one host recorded that metric: several hosts' figures are never mixed
    // into one series (a pool's merged file, a joined run with agents); see by_host.
    std::map<std::string, std::map<int, MetricSeries>, std::less<>> metrics;
    // metric -> samples.host ("": the database writer's own host) -> host-wide series, every host's.
    std::map<std::string, std::map<std::string, MetricSeries>, std::less<>> by_host;
    // The series, or nullptr when there is none (or it is empty).
    const MetricSeries* get(std::string_view metric, int key = host_wide) const;
    const MetricSeries* get_host(std::string_view metric, const std::string& host) const;
    // The hosts that recorded host-wide samples, by name ("" first when the writer's own did).
    std::vector<std::string> hosts() const;
};

// Every sample whose metric `wanted` accepts (of one host's only, when `host` is given: a pool
// run's merged file, schema 3). Throws store::StoreError on a read error.
SampleSet read_samples(const std::string& db_path, const std::function<bool(std::string_view)>& wanted,
                       const std::optional<std::string>& host = std::nullopt);

}  // namespace seatmark::report
