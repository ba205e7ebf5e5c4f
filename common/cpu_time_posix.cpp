#include "common/cpu_time.h"

#include <time.h>

namespace seatmark {

namespace {
int64_t clock_ns(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

int64_t process_cpu_ns() { return clock_ns(CLOCK_PROCESS_CPUTIME_ID); }
int64_t thread_cpu_ns() { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }
double process_cpu_seconds() { return double(process_cpu_ns()) * 1e-9; }
double thread_cpu_seconds() { return double(thread_cpu_ns()) * 1e-9; }

}  // namespace seatmark
