#include "common/logon_session.h"

namespace seatmark {

std::string describe(const LogonSession& s) {
    auto field = [](const char* key, const std::string& v) {
        return std::string(" ") + key + "=" + (v.empty() ? std::string("-") : v);
    };
    return "logon" + field("id", s.id) + field("station", s.station) + field("protocol", s.protocol) +
           field("client", s.client_name) + field("user", s.user);
}

}  // namespace seatmark
