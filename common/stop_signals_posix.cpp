#include "common/stop_signals.h"

#include <signal.h>

namespace seatmark {

std::vector<int> stop_signals() {
    std::vector<int> s = {SIGINT, SIGTERM};
    struct sigaction old {};
    if (::sigaction(SIGHUP, nullptr, &old) != 0 || (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)) return s;
    s.push_back(SIGHUP);
    return s;
}

}  // namespace seatmark
