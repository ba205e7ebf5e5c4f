#include "client/synthetic_sink.h"

#include <time.h>

#include "common/clock.h"

namespace seatmark::client {

namespace {

int64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

void spin_thread_cpu(int64_t ns, const std::function<bool()>& stop) {
    if (ns <= 0) return;
    const int64_t until = thread_cpu_ns() + ns;
    for (unsigned i = 0; thread_cpu_ns() < until; ++i)
        if ((i & 1023) == 0 && stop && stop()) return;  // a long frame still ends on Ctrl-C
}

Submitted SyntheticSink::submit(const FrameParams&, uint64_t token) {
    spin_thread_cpu(cpu_ns_, stop_);
    Submitted s;
    s.submitted_ns = now_ns();
    if (done_) done_(FrameDone{token, s.submitted_ns, -1});
    return s;
}

}  // namespace seatmark::client
