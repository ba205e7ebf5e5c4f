// The rule for a peer's stamps and counts (core/peer_stamps.h): converted into this clock with
// the connection's offset, refused (with the field, the value and why) when no clock could read
// it or it lands outside the connection's life, and counts bounded by 2^53.
#include <doctest/doctest.h>

#include <limits>

#include "core/peer_stamps.h"

using namespace seatmark;
using namespace seatmark::core;

namespace {
constexpr int64_t s_ns = 1'000'000'000;
// A connection accepted at 1000 s on this clock; the peer's clock reads 400 s less (offset +400 s),
// known to +- 1 ms; the message arrives at 1100 s.
const PeerClock clock{400 * s_ns, 1'000'000, 1000 * s_ns};
constexpr int64_t arrived = 1100 * s_ns;

FrameRecord frame(uint64_t seq, int64_t t_begin, int64_t t_present) {
    FrameRecord r;
    r.seq = seq;
    r.t_begin_ns = t_begin;
    r.t_present_ns = t_present;
    return r;
}
}  // namespace

TEST_CASE("peer stamps: converted into this clock with the connection's offset, and 0 stays 0") {
    wire::Message m = wire::Frames{{frame(0, 650 * s_ns, 650 * s_ns + 5), frame(1, 660 * s_ns, 0)}};
    REQUIRE(admit(m, clock, arrived).empty());
    const auto& f = std::get<wire::Frames>(m).frames;
    CHECK(f[0].t_begin_ns == 1050 * s_ns);
    CHECK(f[0].t_present_ns == 1050 * s_ns + 5);
    CHECK(f[1].t_present_ns == 0);  // never presented
    wire::Message hb = wire::Heartbeat{700 * s_ns, 12};
    REQUIRE(admit(hb, clock, arrived).empty());
    CHECK(std::get<wire::Heartbeat>(hb).t_ns == 1100 * s_ns);
    // The edges: the margin (and the offset's uncertainty) before the connection opened, and
    // after the message arrived.
    const int64_t lo = 1000 * s_ns - stamp_margin_ns - 1'000'000, hi = arrived + stamp_margin_ns + 1'000'000;
    for (int64_t t : {lo, hi}) {
        wire::Message e = wire::Event{t - clock.offset_ns, wire::EventKind::info, ""};
        CHECK(admit(e, clock, arrived).empty());
        CHECK(std::get<wire::Event>(e).t_ns == t);
    }
    for (int64_t t : {lo - 1, hi + 1}) {
        wire::Message e = wire::Event{t - clock.offset_ns, wire::EventKind::info, ""};
        CHECK_FALSE(admit(e, clock, arrived).empty());
    }
}

TEST_CASE("peer stamps: one no clock reads, or one outside the connection's life, is refused and says which and why") {
    const int64_t lows[] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min() + 1, -1,
                            std::numeric_limits<int64_t>::max(), max_clock_ns + 1};
    for (int64_t t : lows) {
        wire::Message m = wire::Frames{{frame(0, 650 * s_ns, 0), frame(7, t, 0)}};
        const std::string why = admit(m, clock, arrived);
        INFO(why);
        CHECK(why == "FRAMES frame seq 7 t_begin_ns " + std::to_string(t) +
                         " is not a monotonic clock reading (expected 1 .. 2^62 ns, or 0 for none)");
    }
    // A clock reading, but with the offset far before the connection opened (an offset measured
    // with PONGs off the peer's clock puts every stamp there) or after the message arrived.
    wire::Message early = wire::Hello{};
    std::get<wire::Hello>(early).t_ns = 1;
    std::string why = admit(early, clock, arrived);
    CHECK(why.find("HELLO t_ns 1 lies, with the connection's clock offset +400000000.000 us +- 1000.000 us, 600 s before the "
                   "connection opened") == 0);
    CHECK(why.find("cannot be true") != std::string::npos);
    wire::Message late = wire::Heartbeat{max_clock_ns, 0};
    why = admit(late, clock, arrived);
    CHECK(why.find("HEARTBEAT t_ns 4611686018427387904 lies") == 0);
    CHECK(why.find("after it arrived") != std::string::npos);
    // An offset near the end of int64 (INT64_MAX with a positive offset once wrapped) cannot
    // carry a reading out of range: the sum is checked.
    const PeerClock huge{std::numeric_limits<int64_t>::max() - 5, 0, 1000 * s_ns};
    wire::Message hb = wire::Heartbeat{max_clock_ns, 0};
    CHECK(admit(hb, huge, arrived).find("HEARTBEAT t_ns 4611686018427387904 lies") == 0);
    // A present time is checked as the begin time is.
    wire::Message p = wire::Frames{{frame(3, 650 * s_ns, -5)}};
    CHECK(admit(p, clock, arrived).find("FRAMES frame seq 3 t_present_ns -5 is not a monotonic clock reading") == 0);
}

TEST_CASE("peer counts: anything past 2^53 is refused") {
    wire::Message b = wire::Bye{};
    std::get<wire::Bye>(b).frames_sent = std::numeric_limits<uint64_t>::max();
    CHECK(admit(b, clock, arrived) ==
          "BYE frames_sent 18446744073709551615 exceeds 2^53 (9007199254740992): more than any peer can count");
    std::get<wire::Bye>(b).frames_sent = max_count;
    CHECK(admit(b, clock, arrived).empty());
    wire::Message hb = wire::Heartbeat{700 * s_ns, max_count + 1};
    CHECK(admit(hb, clock, arrived).find("HEARTBEAT frames_emitted 9007199254740993 exceeds 2^53") == 0);
    wire::Message f = wire::Frames{{frame(max_count + 1, 650 * s_ns, 0)}};
    CHECK(admit(f, clock, arrived).find("FRAMES frame seq 9007199254740993 exceeds 2^53") == 0);
    CHECK(count_ok(max_count, "x").empty());
    CHECK(clock_reading(0, "PONG t_peer_ns") == "PONG t_peer_ns 0 is not a monotonic clock reading (expected 1 .. 2^62 ns)");
    CHECK(clock_reading(1, "PONG t_peer_ns").empty());
}

TEST_CASE("peer stamps: an agent's samples and a launcher's logon states and arrivals are converted and checked alike") {
    join::JoinMessage s = join::Samples{650 * s_ns, {}};
    REQUIRE(admit(s, clock, arrived).empty());
    CHECK(std::get<join::Samples>(s).t_ns == 1050 * s_ns);
    join::JoinMessage z = join::Samples{0, {}};
    REQUIRE(admit(z, clock, arrived).empty());
    CHECK(std::get<join::Samples>(z).t_ns == 0);
    join::LogonState ls;
    ls.t_ns = -42;
    join::JoinMessage l = ls;
    CHECK(admit(l, clock, arrived).find("LOGON_STATE t_ns -42 is not a monotonic clock reading") == 0);
    join::Arrivals a;
    a.arrivals = {{1, 650 * s_ns}, {2, std::numeric_limits<int64_t>::min()}};
    join::JoinMessage am = a;
    CHECK(admit(am, clock, arrived).find("ARRIVALS seq 2 t_ns -9223372036854775808 is not") == 0);
    a.arrivals = {{1, 650 * s_ns}};
    a.payload_bytes = std::numeric_limits<uint64_t>::max();
    am = a;
    CHECK(admit(am, clock, arrived).find("ARRIVALS payload_bytes 18446744073709551615 exceeds 2^53") == 0);
    join::JoinMessage start = join::Start{};
    CHECK(admit(start, clock, arrived).empty());
}
