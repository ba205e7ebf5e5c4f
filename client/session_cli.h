#pragma once
// `seatmark session`: command-line front of client/session.h.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace seatmark::client {

// Adds the subcommand; when it is chosen, `run` is set to the function that
// runs it and returns the process exit code.
void add_session_command(CLI::App& app, std::function<int()>& run);

// The same options on `command` itself (the lean `seatmark-session` executable's top level);
// `invoked_as` names the command in the examples of --help.
void configure_session_command(CLI::App& command, std::function<int()>& run, const std::string& invoked_as);

}  // namespace seatmark::client
