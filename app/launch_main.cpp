// seatmark-launch: what `seatmark launch` runs. The RDP launcher links FreeRDP 2 (and through
// it some hundred shared objects); in its own executable they cost nothing to the rest.
#include <CLI/CLI.hpp>

#include <functional>

#include "app/exit_mapping.h"
#include "common/version.h"
#include "launch/launch_cli.h"

int main(int argc, char** argv) {
    CLI::App app{"seatmark launch: open real RDP sessions as test users and measure what arrives at the endpoint"};
    app.set_version_flag("--version", std::string("seatmark-launch ") + seatmark::version);
    std::function<int()> run;
    seatmark::launch::configure_launch_command(app, run);
    return seatmark::app::parse_and_run(app, argc, argv, run);
}
