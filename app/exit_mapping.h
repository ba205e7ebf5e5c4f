#pragma once
// How every seatmark executable turns a command-line parse and a command's run into an
// exit code (common/exit_codes.h) and a message on stderr: one rule for `seatmark` and
// `seatmark-session`.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::app {

// Parses argv into `app`, then calls `run` (set by the chosen command) and maps what it throws.
int parse_and_run(CLI::App& app, int argc, char** argv, const std::function<int()>& run);

}  // namespace seatmark::app
