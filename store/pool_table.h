#pragma once
// A pool run's merged database in a few lines of text: one row per step with every host's share
// and verdict ("idle" where a [scaling] series ran the step on fewer hosts, "lost" from the step a
// host was lost in), the pool's verdict, the device each host's sessions rendered on, and E(H) per
// pool size. Printed by rank 0 at the end of a pool run and by `seatmark merge`.
#include <string>
#include <vector>

#include "store/store_reader.h"

namespace seatmark::store {

// "" for a database without several hosts.
std::string pool_table(const StoreReader& r);

// One line per pool size: "  on 2 host(s): max 4 sessions, E(2) = 1.000", or with E(H) unknown
// why ("E(2) not known: no step passed on 1 host"). "" for fewer than two pool sizes.
std::string scaling_lines(const std::vector<ScalingRow>& rows);

}  // namespace seatmark::store
