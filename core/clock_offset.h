#pragma once
// Clock offset between the orchestrator and a joined peer from PING/PONG round trips
// (common/join_protocol.h), NTP-style: a round trip sent at t0 and answered at t3 (both the
// orchestrator's clock) whose peer stamp is tp puts the peer's clock at tp when the
// orchestrator's read about (t0 + t3) / 2, give or take half the round trip. The round trip
// with the least delay bounds the error best, so it is the one taken.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace seatmark::core {

// A monotonic clock reads at most this (146 years of uptime); a peer stamp above it, or below
// 1, is no clock reading (core/peer_stamps.h).
inline constexpr int64_t max_clock_ns = int64_t(1) << 62;
// How fast two hosts' monotonic clocks may run apart: 1000 ppm, twice the fastest slew NTP
// applies (500 ppm) with room for a poor crystal. CLOCK_MONOTONIC and Windows' QPC never step.
inline constexpr double max_clock_drift = 1e-3;
// Rounding and clock granularity allowed on top when round trips are compared.
inline constexpr int64_t offset_slack_ns = 1'000'000;

struct ClockSample {
    int64_t t_send_ns = 0;  // orchestrator: PING sent
    int64_t t_peer_ns = 0;  // peer: PONG stamped
    int64_t t_recv_ns = 0;  // orchestrator: PONG received
};

struct ClockOffset {
    int64_t offset_ns = 0;       // add to a peer stamp to get the orchestrator's time
    int64_t uncertainty_ns = 0;  // half the best round trip: the true offset lies within +-this
    int64_t rtt_ns = 0;
    uint32_t samples = 0;
};

// The estimate from the least-delay sample; nullopt without a usable sample (t_recv < t_send,
// or a peer stamp that is no clock reading).
std::optional<ClockOffset> estimate_offset(std::span<const ClockSample> samples);

// Whether round trips can all be true: the true offset lies within each usable sample's
// +- half its round trip, so any two of those ranges overlap, give or take the clocks running
// apart by max_clock_drift over the time between them (and offset_slack_ns). "" when they do;
// else why not, naming the two round trips (1-based) and the offset each gives. A
// peer answering a PONG with a stamp off its clock fails this.
std::string disagreement(std::span<const ClockSample> samples);
// The same between two estimates measured at `a_ns` and `b_ns` (this clock): a later burst of
// round trips must agree with the offset in use.
std::string disagreement(const ClockOffset& a, int64_t a_ns, const ClockOffset& b, int64_t b_ns);

}  // namespace seatmark::core
