#include "client/stop_signal.h"

#include "common/stop_signals.h"

#include <signal.h>

#include <atomic>

namespace seatmark::client {

namespace {
std::atomic<bool> stop_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

void on_signal(int) { stop_flag.store(true); }
}  // namespace

void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;  // the second signal takes the default action
    for (int sig : stop_signals()) sigaction(sig, &sa, nullptr);  // SIGHUP too: a session run in a terminal that closes
}

bool stop_requested() { return stop_flag.load(std::memory_order_relaxed); }
void request_stop() { stop_flag.store(true); }

}  // namespace seatmark::client
