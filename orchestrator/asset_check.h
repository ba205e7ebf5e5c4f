#pragma once
// Before any session starts, every asset the plan lists must be on this host and valid: a readable
// regular file, of the plan's size and XXH3 where the plan gives them. A stale, partial or missing
// copy fails the run fast (InputError, exit 2) with the plan's file:line, the path and what to do.
#include "core/plan.h"

namespace seatmark::orchestrator {

// Throws InputError at the first asset that is not present and valid. Hashing large assets prints
// one progress line per asset on stderr.
void verify_assets(const core::Plan& plan);

}  // namespace seatmark::orchestrator
