#pragma once
// `seatmark launch --join CONTROLLER:PORT --token-file FILE`: the launcher as a participant of a
// run (common/join_protocol.h, role launcher). It joins with the run's token, answers clock
// PINGs (so the orchestrator converts its stamps), opens RDP logons when the orchestrator asks
// (LOGON n: the next unused test users), and reports per logon: connecting (its start), the
// rendered frames seen at the client with their arrival times and sampled SSIM (ARRIVALS, every
// 250 ms), and its end with the fault class (LOGON_STATE). LOGOFF or STOP ends logons; a lost
// connection to the orchestrator ends them all (their sessions lost their run too).
#include <string>
#include <vector>

#include "launch/rdp_connection.h"
#include "launch/users_file.h"

namespace seatmark::launch {

struct JoinLauncherOptions {
    std::string address;       // --join HOST:PORT
    std::string token_file;    // --token-file
    std::string host_name;     // --host-name: this launcher's name in the run (default: this machine's)
    std::string session_host;  // --session-host: the host name the logons' sessions join under
    std::string references;    // --references DIR (%u = user), as in standalone mode
    uint32_t reference_every = 30;
    double logon_timeout_s = 30;
    double retry_s = 30;       // keep trying to reach the orchestrator this long
    bool quiet = false;
};

// Returns the exit code: 0 after the orchestrator's STOP, 1 when the orchestrator could not be
// reached or the connection was lost. Throws InputError for a refusal (wrong token).
int run_join_launcher(const RdpTarget& base, const std::vector<TestUser>& users, const JoinLauncherOptions& o);

}  // namespace seatmark::launch
