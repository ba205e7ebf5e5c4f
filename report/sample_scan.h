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
    // metric -> session id (host_wide for session_id NULL) -> series
    std::map<std::string, std::map<int, MetricSeries>, std::less<>> metrics;
    // The series, or nullptr when there is none (or it is empty).
    const MetricSeries* get(std::string_view metric, int key = host_wide) const;
};

// Every sample whose metric `wanted` accepts (of one host's only, when `host` is given: a pool
// run's merged file, schema 3). Throws store::StoreError on a read error.
SampleSet read_samples(const std::string& db_path, const std::function<bool(std::string_view)>& wanted,
                       const std::optional<std::string>& host = std::nullopt);

}  // namespace seatmark::report
