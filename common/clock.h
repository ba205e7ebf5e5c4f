#pragma once
// The one clock every timestamp in seatmark uses: CLOCK_MONOTONIC in ns.
// Sessions and the orchestrator share it on one host, so their times compare.
// unix_now_ns() is the wall clock, only for *_unix_ns values (docs/store.md: Time).
#include <chrono>
#include <cstdint>

namespace seatmark {

inline int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Sleeps until now_ns() >= t (an absolute deadline on the same clock): schedules kept on
// absolute deadlines do not drift by each sleep's overshoot, as relative sleeps do.
// Returns early when a signal is handled, so a stop request is seen at once.
// common/sleep_posix.cpp (clock_nanosleep TIMER_ABSTIME) and common/sleep_windows.cpp.
void sleep_until_ns(int64_t t);

inline int64_t unix_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace seatmark
