// seatmark-session: the process `seatmark run` measures, and what `seatmark session`
// runs. It links only what one session needs (Vulkan, the profiles, the wire protocol):
// no MPI, no SQLite, no HTTP server, and GLFW (with EGL/OpenGL/X11) only when --window
// loads it, so its memory, start-up and descriptors are the session's own.
#include <CLI/CLI.hpp>

#include <functional>

#include "app/exit_mapping.h"
#include "client/session_cli.h"
#include "client/stop_signal.h"
#include "common/version.h"

int main(int argc, char** argv) {
    // First of all: SIGTERM/SIGINT/SIGHUP in any phase (even while parsing) end the session cleanly.
    seatmark::client::install_stop_handlers();
    CLI::App app{"seatmark-session: one synthetic CAD user rendering with Vulkan, timing every frame"};
    app.set_version_flag("--version", std::string("seatmark-session ") + seatmark::version);
    std::function<int()> run;
    seatmark::client::configure_session_command(app, run, "seatmark session");
    return seatmark::app::parse_and_run(app, argc, argv, run);
}
