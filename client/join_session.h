#pragma once
// `seatmark session --join HOST:PORT --token-file FILE`: a synthetic user started elsewhere (a
// logon script in a user's desktop session) that joins a run (common/join_protocol.h). It
// introduces itself, takes its profile and run settings from the orchestrator, waits without
// rendering until activated, renders until told to stop, and, when its connection drops, stops
// rendering and joins again for up to `retry_s` before it gives up.
#include <string>

#include "client/session.h"

namespace seatmark::client {

struct JoinArgs {
    std::string address;     // --join HOST:PORT
    std::string token_file;  // --token-file
    std::string host_name;   // --host-name (default: this machine's name)
    double retry_s = 60;     // --retry-for
};

// Returns the exit code: 0 after a STOP (rendered or not), 1 when no orchestrator could be
// reached within retry_s. Throws InputError for a refusal (wrong token) or bad arguments.
int run_joined_session(SessionOptions opts, const JoinArgs& args);

}  // namespace seatmark::client
