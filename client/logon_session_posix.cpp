#include <unistd.h>

#include <cstdlib>
#include <string>

#include "client/logon_session.h"
#include "common/user_dirs.h"

namespace seatmark::client {

namespace {
std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}
}  // namespace

LogonSession current_logon_session() {
    LogonSession s;
    s.id = env("XDG_SESSION_ID");
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

}  // namespace seatmark::client
