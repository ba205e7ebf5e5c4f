#include <windows.h>

#include "common/cpu_time.h"

namespace seatmark {

namespace {
// FILETIME counts 100 ns units.
int64_t ns(const FILETIME& f) { return int64_t((uint64_t(f.dwHighDateTime) << 32) | f.dwLowDateTime) * 100; }
}  // namespace

// GetProcessTimes/GetThreadTimes advance at the scheduler tick (about 15.6 ms), so short spans
// read coarser than on Linux; the session's per-frame CPU time uses the monotonic clock instead.
int64_t process_cpu_ns() {
    FILETIME c, e, k, u;
    if (!GetProcessTimes(GetCurrentProcess(), &c, &e, &k, &u)) return 0;
    return ns(k) + ns(u);
}

int64_t thread_cpu_ns() {
    FILETIME c, e, k, u;
    if (!GetThreadTimes(GetCurrentThread(), &c, &e, &k, &u)) return 0;
    return ns(k) + ns(u);
}

double process_cpu_seconds() { return double(process_cpu_ns()) * 1e-9; }
double thread_cpu_seconds() { return double(thread_cpu_ns()) * 1e-9; }

}  // namespace seatmark
