#include "core/clock_offset.h"

namespace seatmark::core {

std::optional<ClockOffset> estimate_offset(std::span<const ClockSample> samples) {
    std::optional<ClockOffset> best;
    uint32_t used = 0;
    for (const auto& s : samples) {
        const int64_t rtt = s.t_recv_ns - s.t_send_ns;
        if (rtt < 0) continue;
        ++used;
        if (best && rtt >= best->rtt_ns) continue;
        ClockOffset o;
        o.rtt_ns = rtt;
        // Midpoint without overflow: both ends are on one clock and close together.
        o.offset_ns = s.t_send_ns + rtt / 2 - s.t_peer_ns;
        o.uncertainty_ns = (rtt + 1) / 2;
        best = o;
    }
    if (best) best->samples = used;
    return best;
}

}  // namespace seatmark::core
