#include <time.h>

#include "common/clock.h"

namespace seatmark {

// steady_clock is CLOCK_MONOTONIC on Linux (libstdc++), so the deadline is on now_ns()'s clock.
void sleep_until_ns(int64_t t) {
    if (t <= 0) return;
    timespec ts{static_cast<time_t>(t / 1'000'000'000), static_cast<long>(t % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

}  // namespace seatmark
