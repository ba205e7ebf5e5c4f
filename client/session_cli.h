#pragma once
// `seatmark session`: command-line front of client/session.h.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::client {

// Adds the subcommand; when it is chosen, `run` is set to the function that
// runs it and returns the process exit code.
void add_session_command(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::client
