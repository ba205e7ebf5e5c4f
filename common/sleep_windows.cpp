#include <windows.h>
#include <timeapi.h>

#include "common/clock.h"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

namespace seatmark {

namespace {

// Windows has no absolute sleep on the performance counter's clock: wait for a relative
// timer and wait again while the deadline has not come. Sleep() and plain timers round up to
// the 15.6 ms scheduler tick, far too coarse for a 60 Hz frame cap; the high-resolution
// waitable timer (Windows 10 1803+) is not, so it is preferred, and the fallback asks for a
// 1 ms tick for the process's life.
struct Timer {
    HANDLE h = nullptr;
    Timer() {
        h = CreateWaitableTimerExW(nullptr, nullptr, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
        if (!h) {
            timeBeginPeriod(1);
            h = CreateWaitableTimerW(nullptr, TRUE, nullptr);
        }
    }
    ~Timer() {
        if (h) CloseHandle(h);
    }
};

}  // namespace

void sleep_until_ns(int64_t t) {
    if (t <= 0) return;
    thread_local Timer timer;
    for (int64_t left = t - now_ns(); left > 0; left = t - now_ns()) {
        if (!timer.h) {
            Sleep(DWORD(left / 1'000'000 + 1));
            continue;
        }
        LARGE_INTEGER due;
        due.QuadPart = -((left + 99) / 100);  // negative: relative, in 100 ns units
        if (!SetWaitableTimer(timer.h, &due, 0, nullptr, nullptr, FALSE)) {
            Sleep(DWORD(left / 1'000'000 + 1));
            continue;
        }
        WaitForSingleObject(timer.h, INFINITE);
    }
}

}  // namespace seatmark
