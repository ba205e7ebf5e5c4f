#include "common/stop_signals.h"

#include <csignal>

namespace seatmark {

// Windows has no SIGHUP: a closed console is a console control event (client/stop_signal_windows.cpp).
std::vector<int> stop_signals() { return {SIGINT, SIGTERM}; }

}  // namespace seatmark
