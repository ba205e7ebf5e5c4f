#pragma once
// `seatmark monitor`: command-line front of monitor/monitor_app.h.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::monitor {

void add_monitor_command(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::monitor
