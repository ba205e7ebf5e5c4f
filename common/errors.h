#pragma once
// Error types shared by every subcommand. main() maps each to an exit code
// (common/exit_codes.h) and prints its message on one line.
#include <stdexcept>
#include <string>

namespace seatmark {

// Bad input from the user: a plan, profile, flag or file. The message names the
// file and line ("profiles/x.toml:12:3: ...") and what was expected. Exit code 2.
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A failure that must end the process with a specific exit code
// (common/exit_codes.h), e.g. software_fallback when --no-software was given.
struct ExitError : std::runtime_error {
    ExitError(int code, const std::string& what) : std::runtime_error(what), code(code) {}
    int code;
};

// "file:line:col: " prefix (line/col omitted when 0).
std::string where(const std::string& file, int line = 0, int col = 0);

}  // namespace seatmark
