#include "client/synthetic_sink.h"

#include "common/clock.h"
#include "common/cpu_time.h"

namespace seatmark::client {

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
