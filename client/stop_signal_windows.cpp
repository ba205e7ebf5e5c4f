#include <windows.h>

#include <atomic>

#include "client/stop_signal.h"

namespace seatmark::client {

namespace {
std::atomic<bool> stop_flag{false};

// Windows' stop signals are console control events, delivered on a thread of their own:
// Ctrl-C / Ctrl-Break, the console closing, the user logging off (an RDP user signing out
// of the test session), the host shutting down. The first one asks the session to stop;
// a second Ctrl-C takes the default action, as a second SIGINT does on Linux.
BOOL WINAPI on_event(DWORD event) {
    const bool again = stop_flag.exchange(true);
    if (event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT) return again ? FALSE : TRUE;
    // Close, logoff and shutdown end the process when the handler returns: give the render
    // loop time to send BYE (the system allows about 5 s).
    Sleep(4000);
    return TRUE;
}
}  // namespace

void install_stop_handlers() { SetConsoleCtrlHandler(on_event, TRUE); }
bool stop_requested() { return stop_flag.load(std::memory_order_relaxed); }
void request_stop() { stop_flag.store(true); }

}  // namespace seatmark::client
