#pragma once
// `seatmark stage --source PATH --dest DIR`: command-line front of stage_run.h.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::stage {

void add_stage_command(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::stage
