#include "core/clock_offset.h"

#include <cmath>
#include <cstdio>

namespace seatmark::core {

namespace {

bool usable(const ClockSample& s) {
    return s.t_recv_ns >= s.t_send_ns && s.t_peer_ns >= 1 && s.t_peer_ns <= max_clock_ns && s.t_send_ns >= 0 &&
           s.t_recv_ns <= max_clock_ns;
}

// One sample's offset and its +- (both exact: every term is within 0 .. max_clock_ns).
ClockOffset of(const ClockSample& s) {
    ClockOffset o;
    o.rtt_ns = s.t_recv_ns - s.t_send_ns;
    // Midpoint without overflow: both ends are on one clock and close together.
    o.offset_ns = s.t_send_ns + o.rtt_ns / 2 - s.t_peer_ns;
    o.uncertainty_ns = (o.rtt_ns + 1) / 2;
    return o;
}

std::string seconds(double ns) {
    char b[48];
    std::snprintf(b, sizeof b, "%+.6f s", ns * 1e-9);
    return b;
}

// "" when the +- ranges of a (at a_ns) and b (at b_ns) overlap within the drift allowed between.
bool agree(const ClockOffset& a, int64_t a_ns, const ClockOffset& b, int64_t b_ns) {
    // In double: offsets of clocks far apart may differ by more than an int64 holds; the slack
    // dwarfs a double's rounding at these magnitudes.
    const double gap = std::fabs(double(a.offset_ns) - double(b.offset_ns));
    const double allowed = double(a.uncertainty_ns) + double(b.uncertainty_ns) +
                           max_clock_drift * std::fabs(double(a_ns) - double(b_ns)) + double(offset_slack_ns);
    return gap <= allowed;
}

std::string describe(const std::string& a_name, const ClockOffset& a, const std::string& b_name, const ClockOffset& b) {
    return a_name + " gives the peer's clock offset (added to its stamps) " + seconds(double(a.offset_ns)) + " +- " +
           seconds(double(a.uncertainty_ns)).substr(1) + ", " + b_name + " " +
           seconds(double(b.offset_ns)) + " +- " + seconds(double(b.uncertainty_ns)).substr(1) +
           ": they cannot both be true (the peer's clock stamps are wrong, or its clock jumped)";
}

}  // namespace

std::optional<ClockOffset> estimate_offset(std::span<const ClockSample> samples) {
    std::optional<ClockOffset> best;
    uint32_t used = 0;
    for (const auto& s : samples) {
        if (!usable(s)) continue;
        ++used;
        const ClockOffset o = of(s);
        if (best && o.rtt_ns >= best->rtt_ns) continue;
        best = o;
    }
    if (best) best->samples = used;
    return best;
}

std::string disagreement(std::span<const ClockSample> samples) {
    for (size_t i = 0; i < samples.size(); ++i) {
        if (!usable(samples[i])) continue;
        for (size_t j = i + 1; j < samples.size(); ++j) {
            if (!usable(samples[j])) continue;
            const ClockOffset a = of(samples[i]), b = of(samples[j]);
            if (!agree(a, samples[i].t_send_ns, b, samples[j].t_send_ns))
                return "PONG round trips disagree: " + describe("round trip " + std::to_string(i + 1), a,
                                                                "round trip " + std::to_string(j + 1), b);
        }
    }
    return {};
}

std::string disagreement(const ClockOffset& a, int64_t a_ns, const ClockOffset& b, int64_t b_ns) {
    if (agree(a, a_ns, b, b_ns)) return {};
    return "the clock re-sync disagrees with the offset in use: " +
           describe("the new round trips", b, "the offset measured " + seconds(double(b_ns) - double(a_ns)).substr(1) + " before", a);
}

}  // namespace seatmark::core
