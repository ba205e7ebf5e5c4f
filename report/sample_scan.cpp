#include "report/sample_scan.h"

#include <algorithm>
#include <memory>
#include <set>

#include "store/sqlite_handle.h"
#include "store/store_reader.h"

namespace seatmark::report {

const MetricSeries* SampleSet::get(std::string_view metric, int key) const {
    auto m = metrics.find(metric);
    if (m == metrics.end()) return nullptr;
    auto s = m->second.find(key);
    return s == m->second.end() || s->second.points.empty() ? nullptr : &s->second;
}

const MetricSeries* SampleSet::get_host(std::string_view metric, const std::string& host) const {
    auto m = by_host.find(metric);
    if (m == by_host.end()) return nullptr;
    auto s = m->second.find(host);
    return s == m->second.end() || s->second.points.empty() ? nullptr : &s->second;
}

std::vector<std::string> SampleSet::hosts() const {
    std::set<std::string> names;
    for (const auto& [metric, hosts] : by_host)
        for (const auto& [name, series] : hosts)
            if (!series.points.empty()) names.insert(name);
    return {names.begin(), names.end()};
}

SampleSet read_samples(const std::string& db_path, const std::function<bool(std::string_view)>& wanted,
                       const std::optional<std::string>& host) {
    store::Db db = store::open_read_only(db_path, SQLITE_OPEN_NOMUTEX);
    sqlite3_busy_timeout(db.get(), 5000);
    db.exec("PRAGMA mmap_size = 17179869184", "reading samples");
    // Raw statement: the metric name is looked at in place, not copied, on every row.
    sqlite3_stmt* raw = nullptr;
    const char* sql = host ? "SELECT metric, session_id, t_ns, value, source, host FROM samples WHERE host = ?1"
                           : "SELECT metric, session_id, t_ns, value, source, host FROM samples";
    int rc = sqlite3_prepare_v2(db.get(), sql, -1, &raw, nullptr);
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
    if (rc != SQLITE_OK) db.fail(rc, "reading samples");
    if (host) sqlite3_bind_text(raw, 1, host->data(), int(host->size()), SQLITE_TRANSIENT);
    SampleSet out;
    // Which metrics were seen and whether they are wanted: one decision per distinct name.
    struct Seen {
        std::map<int, MetricSeries>* sessions;  // nullptr: not wanted
        std::map<std::string, MetricSeries>* hosts;
    };
    std::map<std::string, Seen, std::less<>> seen;
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
        std::string_view name(reinterpret_cast<const char*>(sqlite3_column_text(raw, 0)),
                              static_cast<size_t>(sqlite3_column_bytes(raw, 0)));
        auto it = seen.find(name);
        if (it == seen.end()) {
            Seen k{nullptr, nullptr};
            if (wanted(name)) k = {&out.metrics[std::string(name)], &out.by_host[std::string(name)]};
            it = seen.emplace(std::string(name), k).first;
        }
        if (!it->second.sessions) continue;
        const bool host_row = sqlite3_column_type(raw, 1) == SQLITE_NULL;
        MetricSeries& series =
            host_row ? (*it->second.hosts)[std::string(reinterpret_cast<const char*>(sqlite3_column_text(raw, 5)),
                                                       static_cast<size_t>(sqlite3_column_bytes(raw, 5)))]
                     : (*it->second.sessions)[sqlite3_column_int(raw, 1)];
        if (series.points.empty())
            series.source.assign(reinterpret_cast<const char*>(sqlite3_column_text(raw, 4)),
                                 static_cast<size_t>(sqlite3_column_bytes(raw, 4)));
        series.points.push_back({sqlite3_column_int64(raw, 2), sqlite3_column_double(raw, 3)});
    }
    if (rc != SQLITE_DONE) db.fail(rc, "reading samples");
    auto by_time = [](const MetricPoint& a, const MetricPoint& b) { return a.t_ns < b.t_ns; };
    auto sort = [&](MetricSeries& series) {
        if (!std::is_sorted(series.points.begin(), series.points.end(), by_time))
            std::stable_sort(series.points.begin(), series.points.end(), by_time);
    };
    for (auto& [name, by_session] : out.metrics)
        for (auto& [id, series] : by_session) sort(series);
    for (auto& [name, hosts] : out.by_host) {
        for (auto& [host, series] : hosts) sort(series);
        if (hosts.size() == 1) out.metrics[name][host_wide] = hosts.begin()->second;
    }
    return out;
}

WindowSum window_sum(const MetricSeries* series, int64_t t0, int64_t t1) {
    WindowSum a;
    if (!series) return a;
    const auto& v = series->points;
    auto lo = std::lower_bound(v.begin(), v.end(), t0, [](const MetricPoint& r, int64_t t) { return r.t_ns < t; });
    for (auto it = lo; it != v.end() && it->t_ns < t1; ++it) {
        a.sum += it->value;
        a.max = std::max(a.max, it->value);
        ++a.n;
    }
    return a;
}

}  // namespace seatmark::report
