#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/logon_session.h"
#include "common/user_dirs.h"

namespace seatmark {

namespace {
std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}
}  // namespace

LogonSession current_logon_session() {
    LogonSession s;
    // The logind session (an RDP/X2Go/console logon), else the kernel's audit session, else
    // the process session.
    s.id = env("XDG_SESSION_ID");
    if (s.id.empty()) {
        std::ifstream f("/proc/self/sessionid");
        std::string v;
        if (f >> v && v != "4294967295") s.id = "audit " + v;
        else s.id = "sid " + std::to_string(::getsid(0));
    }
    if (const char* tty = ::ttyname(0)) s.station = tty;
    // SSH_CONNECTION is "client-ip client-port server-ip server-port".
    if (std::string ssh = env("SSH_CONNECTION"); !ssh.empty()) {
        s.protocol = "ssh";
        s.client_name = ssh.substr(0, ssh.find(' '));
    } else {
        s.protocol = "local";
    }
    s.user = user_name();
    return s;
}

}  // namespace seatmark
