#pragma once
// A pool run of two golden hosts (tests/report/golden.h), merged by the real seatmark merge:
// steps of 2, 4, 6, 8 pool sessions, breadth-first, so 1..4 on each host. h0's frames meet the
// SLA up to 3 sessions (p95 40 ms > 33.3 ms at 4), h1's up to 2 (35 ms at 3): h0's max density
// 3, h1's 2, the pool's 4, E(2) = 4 / (2 x 3). With `lose_h1`, h1 is lost in step 3 (its writer
// dies there; h0 records it lost, the run degraded) although its frames would have passed.
// The plan has [cost] host_per_hour = 3.2 EUR. Host CPU is 10 % per session on h0, 20 % on h1.
#include <string>

#include "tests/support/process.h"

namespace seatmark::test {

std::string make_golden_pool(const TempDir& dir, bool lose_h1);  // the merged database's path

}  // namespace seatmark::test
