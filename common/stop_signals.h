#pragma once
// The signals that ask a long-running command (run, agent, launch, session) to stop cleanly, one
// list for all of them: SIGINT (Ctrl-C) and SIGTERM everywhere, and on POSIX SIGHUP too, which a
// closed terminal or a dropped SSH connection sends; before, it ended the orchestrator by the
// default action, with no aborted mark, its sessions left running until their own duration.
// SIGHUP is left out when it is ignored at start-up: `nohup` (or a job step) asked for the
// command to outlive its terminal, and handling it would undo that.
#include <vector>

namespace seatmark {

std::vector<int> stop_signals();

}  // namespace seatmark
