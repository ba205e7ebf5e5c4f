#include "core/pool_rules.h"

#include <algorithm>
#include <cmath>

#include "core/pool_shares.h"
#include "core/stats.h"

namespace seatmark::core {

std::string_view to_string(Placement p) {
    switch (p) {
        case Placement::breadth_first: return "breadth-first";
        case Placement::depth_first: return "depth-first";
        case Placement::per_host: return "per-host";
    }
    return "?";
}

std::optional<Placement> parse_placement(std::string_view s) {
    for (Placement p : {Placement::breadth_first, Placement::depth_first, Placement::per_host})
        if (to_string(p) == s) return p;
    return std::nullopt;
}

std::vector<uint32_t> place_sessions(uint32_t target, uint32_t hosts, Placement p, uint32_t max_per_host) {
    std::vector<uint32_t> out(hosts, 0);
    if (hosts == 0) return out;
    switch (p) {
        case Placement::per_host: std::fill(out.begin(), out.end(), target); break;
        case Placement::breadth_first:
            for (uint32_t h = 0; h < hosts; ++h) out[h] = target / hosts + (h < target % hosts ? 1 : 0);
            break;
        case Placement::depth_first: {
            uint32_t left = target;
            for (uint32_t h = 0; h < hosts && left > 0; ++h) {
                out[h] = max_per_host ? std::min(left, max_per_host) : left;
                left -= out[h];
            }
            break;
        }
    }
    return out;
}

uint32_t pool_total(uint32_t step_count, uint32_t hosts, Placement p) {
    return p == Placement::per_host ? step_count * hosts : step_count;
}

StepVerdict pool_verdict(std::span<const HostVerdict> hosts) {
    StepVerdict v;
    v.fps_median = v.p95_median_ms = v.fairness = NAN;
    if (hosts.empty()) {
        v.reasons.push_back("no host took part");
        return v;
    }
    bool figures = true, first_fps = true;
    v.pass = true;
    for (const HostVerdict& h : hosts) {
        const StepVerdict& x = h.verdict;
        v.target += x.target;
        v.failures += x.failures;
        for (auto& [reason, n] : x.failures_by_reason) v.failures_by_reason[reason] += n;
        v.frames += x.frames;
        v.dropped += x.dropped;
        if (x.sessions.size() != h.sessions_judged) figures = false;
        if (x.frames > 0) {  // a host without frames has no FPS figures to take the extremes of
            v.fps_min = first_fps ? x.fps_min : std::min(v.fps_min, x.fps_min);
            v.fps_max = first_fps ? x.fps_max : std::max(v.fps_max, x.fps_max);
            v.low1_worst_fps = first_fps ? x.low1_worst_fps : std::min(v.low1_worst_fps, x.low1_worst_fps);
            first_fps = false;
        }
        if (!std::isnan(x.p95_worst_ms)) v.p95_worst_ms = std::max(v.p95_worst_ms, x.p95_worst_ms);
        if (!std::isnan(x.latency_p95_worst_ms))
            v.latency_p95_worst_ms = std::max(v.latency_p95_worst_ms, x.latency_p95_worst_ms);
        v.stutter_worst = std::max(v.stutter_worst, x.stutter_worst);
        v.gpu_mem_peak_pct = std::max(v.gpu_mem_peak_pct, x.gpu_mem_peak_pct);
        if (!x.pass) {
            v.pass = false;
            if (x.reasons.empty()) v.reasons.push_back(h.host + ": failed");
            for (const std::string& r : x.reasons) v.reasons.push_back(h.host + ": " + r);
        }
        for (const SessionFigures& f : x.sessions) v.sessions.push_back(f);
    }
    if (figures) {  // the same figures judge_window takes over one host's sessions, over all of them
        std::vector<double> fps, p95;
        for (const SessionFigures& f : v.sessions)
            if (f.summary.frames > 0) {
                fps.push_back(f.summary.fps);
                if (!std::isnan(f.summary.p95_ms)) p95.push_back(f.summary.p95_ms);
            }
        v.fps_median = fps.empty() ? 0 : stats::median(fps);
        v.fairness = fps.empty() ? 1 : stats::jain_fairness(fps);
        v.p95_median_ms = p95.empty() ? NAN : stats::median(p95);
    } else {
        v.sessions.clear();  // partial figures would be taken for all of them
    }
    return v;
}

bool sits_out(std::optional<int> rank, std::optional<int> pool_hosts) { return sits_out(rank, pool_hosts, std::nullopt); }

double scaling_efficiency(uint32_t passing_on_h, uint32_t hosts, uint32_t passing_on_1) {
    if (hosts == 0 || passing_on_1 == 0) return NAN;
    return double(passing_on_h) / (double(hosts) * double(passing_on_1));
}

double host_fairness(std::span<const double> host_median_fps) { return stats::jain_fairness(host_median_fps); }

}  // namespace seatmark::core
