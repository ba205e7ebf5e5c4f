#include <windows.h>
#include <wtsapi32.h>

#include "common/logon_session.h"
#include "common/user_dirs.h"
#include "common/win_text.h"

namespace seatmark {

namespace {

// WTSQuerySessionInformation on this process's own session (Remote Desktop Services API:
// what `query session` and Task Manager's Users tab show).
template <typename T>
bool query(WTS_INFO_CLASS what, T& out) {
    LPWSTR buf = nullptr;
    DWORD bytes = 0;
    if (!WTSQuerySessionInformationW(WTS_CURRENT_SERVER_HANDLE, WTS_CURRENT_SESSION, what, &buf, &bytes) || !buf)
        return false;
    if constexpr (std::is_same_v<T, std::string>) {
        out = utf8(buf);
    } else {
        if (bytes >= sizeof(T)) out = *reinterpret_cast<const T*>(buf);
    }
    WTSFreeMemory(buf);
    return true;
}

}  // namespace

LogonSession current_logon_session() {
    LogonSession s;
    DWORD id = 0;
    if (ProcessIdToSessionId(GetCurrentProcessId(), &id)) s.id = std::to_string(id);
    query(WTSWinStationName, s.station);
    USHORT proto = 0;
    if (query(WTSClientProtocolType, proto)) {
        s.protocol = proto == 2 ? "rdp" : proto == 1 ? "ica" : "console";
    } else {
        // No Remote Desktop Services (a stripped-down Windows): the system metric still knows.
        s.protocol = GetSystemMetrics(SM_REMOTESESSION) ? "rdp" : "console";
    }
    query(WTSClientName, s.client_name);
    std::string user, domain;
    query(WTSUserName, user);
    query(WTSDomainName, domain);
    if (user.empty()) user = user_name();
    s.user = domain.empty() || user.empty() ? user : domain + "\\" + user;
    return s;
}

}  // namespace seatmark
