#pragma once
// The run's private folder for its telemetry socket: $TMPDIR/seatmark-run-XXXXXX (/tmp when TMPDIR
// is unset or unusable), 0700, so only this user can connect. The folder carries its owner's pid in an `owner` file; a run killed with
// SIGKILL cannot remove its folder, so each new run removes the folders of owners that are gone.
#include <string>

namespace seatmark::orchestrator {

// Where run folders live: $TMPDIR when it is an absolute path to a folder and short enough that
// "<it>/seatmark-run-XXXXXX/telemetry.sock" fits a Unix socket address (107 bytes); else /tmp.
// Honouring TMPDIR lets a user (or a test) keep runs apart: each run sweeps only its own parent.
std::string run_dir_parent();

// Removes stale folders (owner file names a dead pid, or a pid now running something that started
// later), then creates a fresh one owned by this process. Returns its path; throws runtime_error.
// `parent` is where they live (tests give their own).
std::string make_private_run_dir(const std::string& parent = run_dir_parent());

// How many stale folders the last make_private_run_dir() removed (for the run's log line).
int stale_run_dirs_removed();

}  // namespace seatmark::orchestrator
