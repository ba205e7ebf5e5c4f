#pragma once
// `seatmark launch`: a launcher that opens real RDP sessions and measures what arrives.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::launch {

// Configures `cmd` (seatmark-launch's own root, which `seatmark launch` execs) with the
// launcher's options; the callback sets `run`.
void configure_launch_command(CLI::App& cmd, std::function<int()>& run);

}  // namespace seatmark::launch
