// seatmark.exe: what a Windows host runs, inside each test user's logon (`session`) and once
// per host (`agent`). The controller's subcommands (run, report, monitor, stage, pack, ...)
// run on Linux; they are not in this build. Built by scripts/build-windows.sh.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "agent/agent.h"
#include "common/exit_codes.h"
#include "app/exit_mapping.h"
#include "client/session_cli.h"
#include "client/stop_signal.h"
#include "common/version.h"

int main(int argc, char** argv) {
    // First of all: Ctrl-C, console close and logoff in any phase end a session cleanly.
    seatmark::client::install_stop_handlers();
    CLI::App app{"seatmark (Windows host build): synthetic CAD users and the host agent; the controller runs on Linux"};
    app.set_version_flag("--version", seatmark::version_string);
    app.require_subcommand(1);
    app.footer("Run 'seatmark.exe SUBCOMMAND --help' for its options and an example.\n" + seatmark::exit_code::help_text());
    std::function<int()> run;
    CLI::App* session = app.add_subcommand("session", "Run one synthetic CAD user rendering with Vulkan, timing every frame");
    seatmark::client::configure_session_command(*session, run, "seatmark.exe session");
    seatmark::agent::add_agent_command(
        app, run, "seatmark.exe agent --join controller.example.com:7879 --token-file C:\\ProgramData\\seatmark\\token");
    return seatmark::app::parse_and_run(app, argc, argv, run);
}
