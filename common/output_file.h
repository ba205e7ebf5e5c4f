#pragma once
// Every file a command writes for the user (reports, --json, --junit) goes through here, and
// standard output is checked once in main(): an output that could not be written is an error
// with its own exit code (exit_code::output_error), never a silent exit 0.
#include <string>
#include <string_view>

namespace seatmark {

// Writes `text` to `path` whole or not at all: a temporary file beside it, then rename(2).
// Throws ExitError(exit_code::output_error, "PATH: cannot write: REASON; ...") for a missing
// folder, a read-only file system, a directory at `path`, a full disk.
void write_output_file(const std::string& path, std::string_view text);

// Before long work: throws InputError when `path` cannot be written later (empty, a directory,
// its folder missing, not a folder or not writable), so a run fails in its first second.
void check_output_path(const std::string& path, const std::string& option);

// Flushes stdout; throws the same ExitError naming "standard output" when it failed at any
// point (e.g. `> /dev/full`).
void check_stdout();

}  // namespace seatmark
