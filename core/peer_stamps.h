#pragma once
// What a peer's stamps and counts may be. Every stamp a session, agent or launcher sends is a
// reading of its own monotonic clock and every count is its own word: untrusted input, checked
// here by the connection that received it (orchestrator/telemetry_server.cpp for a spawned
// session, orchestrator/join_listener.cpp for a joined peer) and converted into this process's
// clock with the connection's measured offset (core/clock_offset.h). A message with a stamp or
// count that cannot be true is a protocol fault: the connection ends and the reason is recorded
// with the session (or the peer's event), and the run goes on. Nothing downstream (the recent
// frames window, the judge, the store, the report) then sees a stamp outside its connection's
// life or a count past max_count, so no sum or difference of them can overflow.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/join_protocol.h"
#include "common/wire_protocol.h"
#include "core/clock_offset.h"

namespace seatmark::core {

// A stamp of 0 is "not stamped" (a frame never presented, a logon not yet begun) and stays 0;
// any other below 1 or above max_clock_ns (core/clock_offset.h) is no clock reading.
// No count a peer sends (a frame's sequence number, frames emitted or sent, bytes) may exceed
// this: 2^53, exact as a double and in JSON (report.json, --json), and far past anything real
// (285 years of frames at 1 MHz).
inline constexpr uint64_t max_count = uint64_t(1) << 53;
// A stamp converted into this clock lies within its connection's life: not before the
// connection was accepted, not after the message arrived, each give or take the offset's
// uncertainty and this margin. The margin is a sanity bound, not a timing rule: clocks drift
// microseconds between re-syncs, and frames travel within a second of their stamps.
inline constexpr int64_t stamp_margin_ns = 60'000'000'000;

// The connection whose stamps are being checked.
struct PeerClock {
    int64_t offset_ns = 0;       // added to the peer's stamps (ClockOffset::offset_ns; 0: this host's clock)
    int64_t uncertainty_ns = 0;  // +- of that offset
    int64_t opened_ns = 0;       // the connection was accepted, this clock
};

// Converts every stamp of `m` into this clock (0 stays 0) and checks its stamps and counts.
// "" when all can be true; else why not, naming the field and what was expected (and `m` is
// not to be used). `now_ns`: when the message arrived.
std::string admit(wire::Message& m, const PeerClock& c, int64_t now_ns);
// The same for the join messages that carry stamps or counts (SAMPLES, LOGON_STATE, ARRIVALS,
// REF_ASK, REFERENCE); the others pass unchanged.
std::string admit(join::JoinMessage& m, const PeerClock& c, int64_t now_ns);

// A raw peer stamp (a PONG's, before any offset exists): "" when it is a clock reading
// (1 .. max_clock_ns), else why not.
std::string clock_reading(int64_t t, std::string_view what);
// "" when count n <= max_count, else why not.
std::string count_ok(uint64_t n, std::string_view what);

}  // namespace seatmark::core
