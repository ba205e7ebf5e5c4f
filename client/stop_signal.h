#pragma once
// SIGTERM / SIGINT / SIGHUP (common/stop_signals.h) ask a session to stop early but cleanly: finish the frame in
// flight, send the telemetry BYE with every frame accounted, print the summary.
// A second signal ends the process the default way.
namespace seatmark::client {

void install_stop_handlers();
bool stop_requested();
void request_stop();  // the same from code (tests)

}  // namespace seatmark::client
