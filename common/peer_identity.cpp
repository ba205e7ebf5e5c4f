// The platform part of a joining peer's identity (common/join_peer.h): host name, user, the OS
// session it runs in, its pid, from common/self_exe.h and common/logon_session.h (each with a
// POSIX and a Windows file).
#include "common/join_peer.h"

#include "common/logon_session.h"
#include "common/self_exe.h"

namespace seatmark::join {

PeerIdentity local_identity(const std::string& host_override) {
    PeerIdentity id;
    const LogonSession logon = current_logon_session();
    id.host = host_name();
    id.user = logon.user;
    id.pid = current_pid();
    id.os_session = logon.id;
    if (!host_override.empty()) id.host = host_override;
    return id;
}

}  // namespace seatmark::join
