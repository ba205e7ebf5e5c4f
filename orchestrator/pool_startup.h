#pragma once
// A pool run's exchanges outside the steps: start-up (every rank's host name and asset check
// to rank 0, its go / no-go back; clock offsets by ping-pong; the pool's table to every rank),
// the other hosts' rows a host database records. The databases' trip to rank 0 at the end:
// orchestrator/pool_transfer.h.
// Every exchange has a deadline (orchestrator/pool_comm.h).
#include <string>
#include <vector>

#include "core/plan.h"
#include "orchestrator/pool_comm.h"
#include "orchestrator/pool_coordinator.h"
#include "store/records.h"

namespace seatmark::orchestrator {

// Throws InputError, with the same message on every rank, when the pool cannot start: two ranks
// with one host name, an asset missing or wrong on a host (naming host and file), a placement the
// pool cannot hold. `db` is checked on each host for a database left there. `rank0_problem`:
// what else stops the pool on rank 0 (its live API could not bind), told to every rank.
PoolView pool_startup(PoolComm& comm, const core::Plan& plan, const std::string& host, const std::string& db,
                      const std::string& rank0_problem = "");

// Round trips per rank for its clock offset (the least-delay one is taken: core/clock_offset.h).
inline constexpr int clock_rounds = 16;

// The rows host `self` records for the others: offsets into its own time base.
std::vector<store::HostInfo> other_host_rows(const PoolView& view, int self);


}  // namespace seatmark::orchestrator
