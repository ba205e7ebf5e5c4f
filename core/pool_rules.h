#pragma once
// The rules of a pool run (several hosts, one MPI rank each), in one place: where a step's
// sessions go (placement), how the hosts' own verdicts make the pool's, scaling efficiency and
// cross-host fairness. The MPI coordinator applies them live, `seatmark merge` and the report
// afterwards.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/verdict.h"

namespace seatmark::core {

// How a step's target (the pool's total sessions) is spread over the hosts.
enum class Placement {
    breadth_first,  // evenly; the first hosts get one more when it does not divide (AVD's default)
    depth_first,    // fill a host up to max_sessions_per_host, then the next (AVD depth-first)
    per_host,       // every host runs the step's count (weak scaling): the pool runs hosts x count
};
std::string_view to_string(Placement p);
std::optional<Placement> parse_placement(std::string_view s);  // "breadth-first", "depth-first", "per-host"

// Sessions per host for a step, hosts in rank order. depth_first needs max_per_host > 0 and
// target <= hosts x max_per_host (the plan loader refuses a plan that breaks it, naming the step).
std::vector<uint32_t> place_sessions(uint32_t target, uint32_t hosts, Placement p, uint32_t max_per_host);

// The pool's total for a step's count: the count itself, or hosts x count with per_host.
uint32_t pool_total(uint32_t step_count, uint32_t hosts, Placement p);

// Whether a host sits a step out: a [scaling] series runs each step on the first `pool_hosts`
// ranks (steps.pool_hosts), the others wait. A host without a rank (joined) or a step without a
// pool size takes part. With its share known, core/pool_shares.h's overload is the whole rule.
bool sits_out(std::optional<int> rank, std::optional<int> pool_hosts);

// One host's own verdict of a span. `sessions_judged` is the number of sessions it judged;
// `verdict.sessions` carries their figures when known (live), or is empty (from stored rows).
struct HostVerdict {
    std::string host;
    StepVerdict verdict;
    uint64_t sessions_judged = 0;
};

// The pool's verdict of a span: it passes when every host passed it (and at least one took part).
// Counts add up; minimums, maximums and worst figures are over the hosts; the reasons are each
// failing host's, prefixed "HOST: ", in host order. Medians and fairness are over the union of
// the hosts' sessions when every host carries its session figures; NaN otherwise (not known).
StepVerdict pool_verdict(std::span<const HostVerdict> hosts);

// Scaling efficiency E(H) = passing sessions on H hosts / (H x passing sessions on 1 host);
// NaN when the one-host figure is 0 or H is 0.
double scaling_efficiency(uint32_t passing_on_h, uint32_t hosts, uint32_t passing_on_1);

// Jain's index over the hosts' median FPS (1 = every host delivers the same).
double host_fairness(std::span<const double> host_median_fps);

}  // namespace seatmark::core
