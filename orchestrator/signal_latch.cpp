#include "orchestrator/signal_latch.h"

#include <cerrno>

#include "common/stop_signals.h"

namespace seatmark::orchestrator {

namespace {

std::atomic<int> latched{0};
// Read by the handler: each slot is set before the handler is installed for its signal. Fixed
// storage (a handler may not touch a vector another thread could be resizing).
constexpr int max_signals = 8;
struct Previous {
    int sig = 0;
    struct sigaction action {};
};
Previous previous[max_signals];

bool is_handler(const struct sigaction& a) {
    if (a.sa_flags & SA_SIGINFO) return a.sa_sigaction != nullptr;
    return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

void on_signal(int sig, siginfo_t* info, void* ctx) {
    const int saved = errno;
    latched.store(sig);
    for (const Previous& prev : previous) {
        if (prev.sig != sig) continue;
        const struct sigaction& p = prev.action;
        if (p.sa_flags & SA_SIGINFO) {
            if (p.sa_sigaction) p.sa_sigaction(sig, info, ctx);
        } else if (is_handler(p)) {
            p.sa_handler(sig);  // asio's: it queues the signal for the event loop
        }
        break;
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
    const std::vector<int> sigs = stop_signals();
    for (size_t i = 0; i < sigs.size() && i < size_t(max_signals); ++i) {
        previous[i].sig = sigs[i];
        sigaction(sigs[i], nullptr, &previous[i].action);
        Taken t;
        t.sig = sigs[i];
        sigaction(sigs[i], &a, &t.old);
        taken_.push_back(t);
    }
}

SignalLatch::~SignalLatch() {
    for (const Taken& t : taken_) sigaction(t.sig, &t.old, nullptr);
    const int sig = latched.load();
    // Nobody else would have seen it: with the default action the process ends as it would have.
    for (const Taken& t : taken_)
        if (t.sig == sig && !is_handler(t.old) && t.old.sa_handler == SIG_DFL) std::raise(sig);
}

int SignalLatch::fired() const { return latched.load(); }

}  // namespace seatmark::orchestrator
