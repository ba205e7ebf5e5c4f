#pragma once
// What the monitor accepts from a live API before it keeps or draws anything. Anything that
// answers on the ports the monitor scans can send a document; a count, index or time no real
// run can have (10^7 steps, a session count over the plan limit, frames it did not ask for)
// must not size an allocation or a drawing loop. Each check throws std::runtime_error naming
// the field, the value and the limit, which the monitor shows as the link's note.
#include <cstdint>
#include <vector>

#include "core/live_json.h"
#include "core/live_state.h"

namespace seatmark::monitor {

// The longest run the monitor's time axes handle (seconds since the run started): ~3 years.
inline constexpr double max_run_seconds = 1e8;

void check_live_state(const core::LiveState& s);
void check_live_history(const std::vector<core::LiveHistoryPoint>& h);
// `asked` is the `max` the monitor sent; `mono_start_ns` the run's monotonic origin.
void check_live_frames(const std::vector<core::LiveFrame>& f, size_t asked, int64_t mono_start_ns);

}  // namespace seatmark::monitor
