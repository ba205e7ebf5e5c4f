#pragma once
// Lets a blocking wait notice a stop signal (common/stop_signals.h: SIGINT, SIGTERM, SIGHUP). The
// run controller handles those signals on its event loop (asio's signal_set), which does not run
// while a pool rank waits in the planner's vote between steps (SharePlanner): without this, a
// rank stopped there went on waiting until the launcher's SIGKILL and its database said only that
// the run did not finish. While a latch lives, the signal is noted here and passed on to the
// handler that was installed before it, so the controller's own handling still runs as soon as
// the wait returns to the event loop.
#include <atomic>
#include <csignal>
#include <vector>

namespace seatmark::orchestrator {

class SignalLatch {
public:
    SignalLatch();   // takes every stop signal
    ~SignalLatch();  // gives them back; one that arrived with no handler before is raised again
    SignalLatch(const SignalLatch&) = delete;
    SignalLatch& operator=(const SignalLatch&) = delete;

    // The signal that arrived while the latch lived, 0 if none.
    int fired() const;

private:
    struct Taken {
        int sig = 0;
        struct sigaction old {};
    };
    std::vector<Taken> taken_;
};

}  // namespace seatmark::orchestrator
