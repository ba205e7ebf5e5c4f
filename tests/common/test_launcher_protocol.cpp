// The launcher's messages of the join protocol (common/join_protocol.h): round trips and
// refusals of payloads whose counts do not fit.
#include <doctest/doctest.h>

#include <cstring>

#include "common/join_protocol.h"

using namespace seatmark;
using namespace seatmark::join;

namespace {

JoinMessage round_trip(const JoinMessage& m) {
    std::vector<uint8_t> b;
    encode(b, m);
    Decoder d;
    d.set_limit(wire::max_payload);
    d.feed(b.data(), b.size());
    Message out;
    REQUIRE(d.next(out) == wire::DecodeStatus::ok);
    REQUIRE(std::holds_alternative<JoinMessage>(out));
    return std::get<JoinMessage>(out);
}

std::string refusal(std::vector<uint8_t> b) {
    Decoder d;
    d.set_limit(wire::max_payload);
    d.feed(b.data(), b.size());
    Message out;
    CHECK(d.next(out) == wire::DecodeStatus::error);
    return d.error();
}

}  // namespace

TEST_CASE("launcher messages round-trip") {
    CHECK(std::get<Logon>(round_trip(Logon{3})).count == 3);
    CHECK(std::get<Logoff>(round_trip(Logoff{"u1"})).user == "u1");
    LogonState s;
    s.host = "vdi-1";
    s.user = "u2";
    s.rdp_host = "127.0.0.1:33890";
    s.state = LogonState::ended;
    s.t_ns = -42;
    s.fault = "cut";
    s.detail = "gone";
    s.codec = "remotefx";
    s.payload_bytes = 1234567;
    s.paints = 99;
    s.unreadable = 2;
    s.bytes_per_s = 1.5e5;
    auto s2 = std::get<LogonState>(round_trip(s));
    CHECK(s2.host == "vdi-1");
    CHECK(s2.rdp_host == "127.0.0.1:33890");
    CHECK(s2.state == LogonState::ended);
    CHECK(s2.t_ns == -42);
    CHECK(s2.fault == "cut");
    CHECK(s2.payload_bytes == 1234567);
    CHECK(s2.unreadable == 2);
    CHECK(s2.bytes_per_s == 1.5e5);
    Arrivals a;
    a.host = "vdi-1";
    a.user = "u2";
    a.arrivals = {{7, 100}, {9, 200}};
    a.ssim = {{7, 0.97}};
    a.codec = "bitmap";
    a.payload_bytes = 5;
    auto a2 = std::get<Arrivals>(round_trip(a));
    REQUIRE(a2.arrivals.size() == 2);
    CHECK(a2.arrivals[1].seq == 9);
    CHECK(a2.arrivals[1].t_ns == 200);
    REQUIRE(a2.ssim.size() == 1);
    CHECK(a2.ssim[0].ssim == 0.97);
    CHECK(a2.codec == "bitmap");
    CHECK(std::get<RefAsk>(round_trip(RefAsk{"vdi-1", "u2", 60})).seq == 60);
    Reference r;
    r.user = "u2";
    r.seq = 60;
    r.width = 8;
    r.height = 4;
    r.gray_width = 4;
    r.gray_height = 2;
    r.gray = {1, 2, 3, 4, 5, 6, 7, 8};
    auto r2 = std::get<Reference>(round_trip(r));
    CHECK(r2.gray == r.gray);
    CHECK(r2.width == 8);
    CHECK(r2.gray_height == 2);
    Reference none;
    none.user = "u2";
    none.reason = "not kept";
    CHECK(std::get<Reference>(round_trip(none)).reason == "not kept");
    CHECK(to_string(Role::launcher) == "launcher");
}

TEST_CASE("launcher messages whose counts do not fit their payload are refused") {
    Arrivals a;
    a.arrivals = {{1, 1}};
    std::vector<uint8_t> b;
    encode(b, a);
    // The arrival count sits after the header and two empty strings (4 + 4 bytes).
    const size_t at = wire::header_size + 8;
    b[at] = 0xff;
    b[at + 1] = 0xff;
    CHECK(refusal(b).find("ARRIVALS count") != std::string::npos);
    Reference r;
    r.width = 4;
    r.height = 4;
    r.gray_width = 2;
    r.gray_height = 2;
    r.gray = {1, 2, 3};  // one byte short
    b.clear();
    encode(b, r);
    CHECK(refusal(b).find("REFERENCE 2x2 does not match") != std::string::npos);
    LogonState s;
    s.state = 9;
    b.clear();
    encode(b, s);
    CHECK(refusal(b).find("LOGON_STATE state 9") != std::string::npos);
}
