#pragma once
// The logon a session runs in: on an AVD host each synthetic user runs inside a real RDP
// logon, and the run must say which (common/logon_session_windows.cpp: the WTS API;
// common/logon_session_posix.cpp: the login session's environment). Sent as an info event at
// start and printed in the summary.
#include <string>

namespace seatmark {

struct LogonSession {
    std::string id;           // Windows session id; XDG_SESSION_ID on Linux; "" when unknown
    std::string station;      // WinStation name ("Console", "RDP-Tcp#3"); the tty on Linux
    std::string protocol;     // "console", "rdp", "ica", "ssh", "local"
    std::string client_name;  // the RDP client's computer name; the SSH peer's address
    std::string user;         // DOMAIN\user on Windows
    bool remote() const { return protocol == "rdp" || protocol == "ica" || protocol == "ssh"; }
};

LogonSession current_logon_session();

// One line, key=value pairs: "logon id=2 station=RDP-Tcp#0 protocol=rdp client=WS-042 user=CORP\alice".
std::string describe(const LogonSession& s);

}  // namespace seatmark
