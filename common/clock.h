#pragma once
// The one clock every timestamp in seatmark uses: CLOCK_MONOTONIC in ns.
// Sessions and the orchestrator share it on one host, so their times compare.
#include <chrono>
#include <cstdint>

namespace seatmark {

inline int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace seatmark
