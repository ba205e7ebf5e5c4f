#pragma once
// `seatmark run PLAN.toml` and `seatmark demo`: command-line front of run_controller.h.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace seatmark::orchestrator {

// Writes a run's report into a folder and returns a one-line headline. `seatmark demo`
// calls it after its run; main() supplies it from report/, which depends on this
// library (so the orchestrator cannot call the report itself).
using ReportWriter = std::function<std::string(const std::string& db_path, const std::string& dir)>;

void add_run_commands(CLI::App& app, std::function<int()>& run, ReportWriter demo_report = {});

}  // namespace seatmark::orchestrator
