#include "core/pool_shares.h"

#include "common/errors.h"

namespace seatmark::core {

bool sits_out(std::optional<int> rank, std::optional<int> pool_hosts, std::optional<uint32_t> share) {
    return (rank && pool_hosts && *pool_hosts > 0 && *rank >= *pool_hosts) || (share && *share == 0);
}

std::string lost_host_reason(const std::string& host) { return host + ": lost before this span was judged"; }

std::string missing_host_reason(const std::string& host) {
    return host + ": its own database is not in this file, so its verdict of this span is not known (merge its file too)";
}

std::vector<std::optional<PlannedStep>> planned_pool_steps(const Plan& plan,
                                                           std::span<const std::optional<int>> pool_hosts,
                                                           uint32_t ranks) {
    std::vector<std::optional<PlannedStep>> out;
    size_t ramp_start = 0;
    for (size_t i = 0; i < pool_hosts.size(); ++i) {
        const uint32_t h = pool_hosts[i] && *pool_hosts[i] > 0 ? uint32_t(*pool_hosts[i]) : ranks;
        // A new pool size starts a new ramp of the series: its first step is the plan's first count.
        if (i > 0) {
            const uint32_t before = pool_hosts[i - 1] && *pool_hosts[i - 1] > 0 ? uint32_t(*pool_hosts[i - 1]) : ranks;
            if (before != h) ramp_start = i;
        }
        const size_t j = i - ramp_start;
        if (plan.search.adaptive || j >= plan.steps.size() || h == 0 || h > ranks) {
            out.emplace_back();
            continue;
        }
        const uint32_t count = plan.steps[j];
        if (plan.pool.placement == Placement::depth_first &&
            (plan.pool.max_sessions_per_host == 0 || count > uint64_t(h) * plan.pool.max_sessions_per_host)) {
            out.emplace_back();  // the plan loader refuses it; a stored plan is input like any other
            continue;
        }
        PlannedStep s;
        s.pool_hosts = h;
        s.total = pool_total(count, h, plan.pool.placement);
        s.shares = place_sessions(count, h, plan.pool.placement, plan.pool.max_sessions_per_host);
        s.shares.resize(ranks, 0);
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<std::optional<PlannedStep>> planned_pool_steps(const std::string& plan_text, const std::string& source,
                                                           std::span<const std::optional<int>> pool_hosts,
                                                           uint32_t ranks) {
    try {
        return planned_pool_steps(parse_plan(plan_text, source), pool_hosts, ranks);
    } catch (const InputError&) {
        return {};
    }
}

}  // namespace seatmark::core
