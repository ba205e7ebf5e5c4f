#include <doctest/doctest.h>

#include "common/logon_session.h"
#include "common/user_dirs.h"

using namespace seatmark;

TEST_CASE("the logon line names every field, a dash for what is unknown") {
    LogonSession s;
    s.id = "2";
    s.station = "RDP-Tcp#0";
    s.protocol = "rdp";
    s.client_name = "WS-042";
    s.user = "CORP\\alice";
    CHECK(describe(s) == "logon id=2 station=RDP-Tcp#0 protocol=rdp client=WS-042 user=CORP\\alice");
    CHECK(s.remote());
    LogonSession empty;
    CHECK(describe(empty) == "logon id=- station=- protocol=- client=- user=-");
    CHECK_FALSE(empty.remote());
}

TEST_CASE("this process's logon is read from the system") {
    // Run natively on Linux: the environment's login session; run under Wine: the WTS API
    // (Wine answers for a console session). Both know a protocol and the user.
    const LogonSession s = current_logon_session();
    CHECK_FALSE(s.protocol.empty());
    CHECK(s.user.find(user_name()) != std::string::npos);
    CHECK_FALSE(user_name().empty());
}
