#pragma once
// What a pool run's plan placed in each step it took: the pool's total and every rank's share.
// A merge and a report read it so a step's session count and each host's share stay true when a
// host's own database is missing (a lost rank): step j of a ramp on H hosts (a run of steps with
// one pool size, steps.pool_hosts) runs the plan's j-th count, placed on the first H ranks by
// the plan's [pool] placement (core::place_sessions), as SharePlanner ran it live.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/plan.h"

namespace seatmark::core {

struct PlannedStep {
    uint32_t pool_hosts = 0;
    uint32_t total = 0;            // the pool's sessions in the step
    std::vector<uint32_t> shares;  // by rank, `ranks` long; 0 for a rank beyond pool_hosts
};

// `pool_hosts`: each step's pool size by step index (0, 1, ...); nullopt (files from before the
// column) means every rank. One entry per step; nullopt where the plan does not say (an adaptive
// search, a step beyond the plan's list, a placement the pool cannot hold).
std::vector<std::optional<PlannedStep>> planned_pool_steps(const Plan& plan,
                                                           std::span<const std::optional<int>> pool_hosts,
                                                           uint32_t ranks);

// The one idle rule: a host sits a step out (runs nothing in it) when it is beyond a [scaling]
// series' pool size (steps.pool_hosts), or when its share of the step is known to be 0 (the
// placement gave it none; a joined host that had no session in it). The merge, the pool table
// and the report call it; core::sits_out(rank, pool_hosts) is this with the share not known.
bool sits_out(std::optional<int> rank, std::optional<int> pool_hosts, std::optional<uint32_t> share);

// The reason a pool's verdict of a span carries for a host it has no verdict of: lost before the
// span was judged, or (a host lost later whose own database is not in the file) not known.
std::string lost_host_reason(const std::string& host);
std::string missing_host_reason(const std::string& host);

// The same from a stored plan's text (runs.plan_text); empty when it does not parse here (a
// profile file that exists only on the host that ran it, say): the caller keeps what it has.
std::vector<std::optional<PlannedStep>> planned_pool_steps(const std::string& plan_text, const std::string& source,
                                                           std::span<const std::optional<int>> pool_hosts,
                                                           uint32_t ranks);

}  // namespace seatmark::core
