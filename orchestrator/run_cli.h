#pragma once
// `seatmark run PLAN.toml` and `seatmark demo`: command-line front of run_controller.h.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::orchestrator {

void add_run_commands(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::orchestrator
