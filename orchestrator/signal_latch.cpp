#include "orchestrator/signal_latch.h"

#include <cerrno>

namespace seatmark::orchestrator {

namespace {

std::atomic<int> latched{0};
struct sigaction previous_int {}, previous_term {};  // read by the handler: set before it is installed

bool is_handler(const struct sigaction& a) {
    if (a.sa_flags & SA_SIGINFO) return a.sa_sigaction != nullptr;
    return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

void on_signal(int sig, siginfo_t* info, void* ctx) {
    const int saved = errno;
    latched.store(sig);
    const struct sigaction& p = sig == SIGINT ? previous_int : previous_term;
    if (p.sa_flags & SA_SIGINFO) {
        if (p.sa_sigaction) p.sa_sigaction(sig, info, ctx);
    } else if (is_handler(p)) {
        p.sa_handler(sig);  // asio's: it queues the signal for the event loop
    }
    errno = saved;
}

}  // namespace

SignalLatch::SignalLatch() {
    latched.store(0);
    struct sigaction a {};
    a.sa_sigaction = on_signal;
    a.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&a.sa_mask);
    sigaction(SIGINT, nullptr, &previous_int);
    sigaction(SIGTERM, nullptr, &previous_term);
    sigaction(SIGINT, &a, &old_int_);
    sigaction(SIGTERM, &a, &old_term_);
}

SignalLatch::~SignalLatch() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    const int sig = latched.load();
    // Nobody else would have seen it: with the default action the process ends as it would have.
    if (sig != 0 && !is_handler(sig == SIGINT ? old_int_ : old_term_) &&
        (sig == SIGINT ? old_int_ : old_term_).sa_handler == SIG_DFL)
        std::raise(sig);
}

int SignalLatch::fired() const { return latched.load(); }

}  // namespace seatmark::orchestrator
