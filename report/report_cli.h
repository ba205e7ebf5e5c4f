#pragma once
// `seatmark report`, `seatmark check` and `seatmark compare`: the command-line front of
// analysis.h, write_report.h, check.h and compare.h.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::report {

void add_report_commands(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::report
