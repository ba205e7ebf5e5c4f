#pragma once
// `seatmark launch`: a launcher that opens real RDP sessions and measures what arrives.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::launch {

void add_launch_command(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::launch
