#pragma once
// Clock offset between the orchestrator and a joined peer from PING/PONG round trips
// (common/join_protocol.h), NTP-style: a round trip sent at t0 and answered at t3 (both the
// orchestrator's clock) whose peer stamp is tp puts the peer's clock at tp when the
// orchestrator's read about (t0 + t3) / 2, give or take half the round trip. The round trip
// with the least delay bounds the error best, so it is the one taken.
#include <cstdint>
#include <optional>
#include <span>

namespace seatmark::core {

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

// The estimate from the least-delay sample; nullopt without a usable sample (t_recv < t_send).
std::optional<ClockOffset> estimate_offset(std::span<const ClockSample> samples);

}  // namespace seatmark::core
