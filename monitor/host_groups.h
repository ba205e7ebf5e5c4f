#pragma once
// The session grid's groups: one per host of a pool run (rank 0's live API lists `hosts` and a
// `host` per session; a merged .db the same), in rank order, each with its sessions; a
// single-host run is one group. Session ids are unique per host only: a tile is (host, id).
#include <cstddef>
#include <string>
#include <vector>

#include "core/live_state.h"

namespace seatmark::monitor {

struct HostGroup {
    std::string name;            // the host ("" only when nothing names one)
    std::string status = "ok";   // "ok", "lost", "idle" (from the hosts list)
    int rank = -1;               // -1: not listed in the hosts list
    int64_t clock_offset_ns = 0, clock_uncertainty_ns = 0;
    std::vector<size_t> sessions;  // indexes into LiveState::sessions, in their order
    uint32_t running = 0, failed = 0;
    std::string label() const;   // "h1 · rank 1 · 2 running · clock +45 us ± 173 us"
};

std::vector<HostGroup> group_by_host(const core::LiveState& s);

}  // namespace seatmark::monitor
