// The platform part of a joining peer's identity (common/join_peer.h): host name, user, the OS
// session it runs in, its pid. One file per concern: the Windows branch is here too.
#include "common/join_peer.h"

#include <cstdlib>
#include <fstream>

#ifdef _WIN32
#include <windows.h>
#else
#include <pwd.h>
#include <unistd.h>
#endif

namespace seatmark::join {

PeerIdentity local_identity(const std::string& host_override) {
    PeerIdentity id;
#ifdef _WIN32
    char name[256];
    DWORD n = sizeof name;
    if (GetComputerNameA(name, &n)) id.host.assign(name, n);
    if (const char* u = std::getenv("USERNAME")) id.user = u;
    id.pid = GetCurrentProcessId();
    DWORD sid = 0;
    if (ProcessIdToSessionId(id.pid, &sid)) id.os_session = std::to_string(sid);
#else
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0) id.host = name;
    if (const char* u = std::getenv("USER"); u && *u) {
        id.user = u;
    } else if (const passwd* pw = getpwuid(getuid())) {
        id.user = pw->pw_name;
    }
    id.pid = static_cast<uint32_t>(getpid());
    // The logind session (an RDP/X2Go/console logon), else the kernel's audit session, else
    // the process session.
    if (const char* s = std::getenv("XDG_SESSION_ID"); s && *s) {
        id.os_session = s;
    } else {
        std::ifstream f("/proc/self/sessionid");
        std::string v;
        if (f >> v && v != "4294967295") id.os_session = "audit " + v;
        else id.os_session = "sid " + std::to_string(getsid(0));
    }
#endif
    if (!host_override.empty()) id.host = host_override;
    return id;
}

}  // namespace seatmark::join
