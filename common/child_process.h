#pragma once
// Runs a program to its end (the session packing a model with `seatmark pack`): its stdout goes
// to this process's stderr, so a child's chatter never mixes into a session's stdout.
// common/child_process_posix.cpp (fork/exec) and common/child_process_windows.cpp (CreateProcess).
// The orchestrator's long-lived session children use Boost.Process instead.
#include <cstdint>
#include <string>
#include <vector>

namespace seatmark {

// argv[0] is the executable's path. Returns the exit status (127 when it could not be
// started, 128 + signal when a signal ended it); throws std::runtime_error when no child
// could be made at all.
int run_child(const std::vector<std::string>& argv);

// Whether a process with this pid exists now. POSIX looks for PROC_ROOT/PID (tests hand in a
// made-up /proc); Windows asks OpenProcess and ignores proc_root.
bool process_exists(uint32_t pid, const std::string& proc_root = "/proc");

}  // namespace seatmark
