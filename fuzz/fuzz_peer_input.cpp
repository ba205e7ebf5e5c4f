// Peer stamps and counts after the clock offset (core/peer_stamps.h): a joined connection's
// clock measured from arbitrary round trips (core/clock_offset.h, as the join listener measures
// it), then an arbitrary byte stream decoded as the listener decodes it, each message admitted
// with that clock, and what is admitted fed to the frame accounting and the live-frames window
// as the run controller feeds them. Nothing may overflow (UBSan), loop without end or break the
// rule: every admitted stamp is 0 or within the connection's life, every count within
// max_count, every frame taken or counted out of sequence, the window bounded and never empty
// after a frame, and the stored loss figures within int64.
//
// Input: 4 round trips of 3 x i64 (PING sent, peer stamp, PONG received), the connection's
// opening and the message's arrival (2 x i64, this clock), then the stream.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <variant>
#include <vector>

#include "common/join_protocol.h"
#include "core/clock_offset.h"
#include "core/peer_stamps.h"
#include "orchestrator/frame_account.h"
#include "orchestrator/recent_frames.h"

using namespace seatmark;

namespace {

constexpr size_t head = 4 * 3 * 8 + 2 * 8;
constexpr uint64_t own_clock = (uint64_t(1) << 62) - 1;  // this process's readings: 0 .. 2^62

int64_t i64(const uint8_t* p) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

struct Bounds {
    int64_t lo, hi;
};

Bounds bounds(const core::PeerClock& c, int64_t now) {
    const int64_t slack = (c.uncertainty_ns > 0 ? c.uncertainty_ns : 0) + core::stamp_margin_ns;
    Bounds b;
    if (__builtin_sub_overflow(c.opened_ns, slack, &b.lo)) b.lo = INT64_MIN;
    if (__builtin_add_overflow(now, slack, &b.hi)) b.hi = INT64_MAX;
    return b;
}

void stamp_ok(int64_t t, const Bounds& b) {
    if (t != 0 && (t < b.lo || t > b.hi)) __builtin_trap();
}

void count_ok(uint64_t n) {
    if (n > core::max_count) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < head) return 0;
    std::vector<core::ClockSample> burst;
    for (int i = 0; i < 4; ++i) {
        const uint8_t* p = data + i * 24;
        burst.push_back({int64_t(uint64_t(i64(p)) & own_clock), i64(p + 8), int64_t(uint64_t(i64(p + 16)) & own_clock)});
    }
    const int64_t opened = int64_t(uint64_t(i64(data + 96)) & own_clock);
    const int64_t now = opened + int64_t(uint64_t(i64(data + 104)) & ((uint64_t(1) << 50) - 1));  // up to 13 days later
    data += head;
    size -= head;

    (void)core::disagreement(burst);
    core::PeerClock c{0, 0, opened};
    if (auto est = core::estimate_offset(burst)) {
        c.offset_ns = est->offset_ns;
        c.uncertainty_ns = est->uncertainty_ns;
        (void)core::disagreement(*est, opened, *est, now);
    }
    const Bounds b = bounds(c, now);

    join::Decoder dec;
    dec.set_limit(wire::max_payload);  // as once authenticated
    dec.feed(data, size);
    orchestrator::FrameAccount acc;
    orchestrator::RecentFrames recent;
    join::Message m;
    while (dec.next(m) == wire::DecodeStatus::ok) {
        if (auto* jm = std::get_if<join::JoinMessage>(&m)) {
            if (!core::admit(*jm, c, now).empty()) continue;
            if (auto* s = std::get_if<join::Samples>(jm)) stamp_ok(s->t_ns, b);
            if (auto* st = std::get_if<join::LogonState>(jm)) {
                stamp_ok(st->t_ns, b);
                count_ok(st->payload_bytes);
            }
            if (auto* a = std::get_if<join::Arrivals>(jm))
                for (const auto& x : a->arrivals) {
                    stamp_ok(x.t_ns, b);
                    count_ok(x.seq);
                }
            continue;
        }
        auto& wm = std::get<wire::Message>(m);
        if (!core::admit(wm, c, now).empty()) continue;
        if (auto* f = std::get_if<wire::Frames>(&wm)) {
            for (const auto& r : f->frames) {
                stamp_ok(r.t_begin_ns, b);
                stamp_ok(r.t_present_ns, b);
                count_ok(r.seq);
                const uint64_t before = acc.received + acc.out_of_sequence;
                if (acc.add(r)) recent.add(r);
                if (acc.received + acc.out_of_sequence != before + 1) __builtin_trap();
                if (recent.size() > orchestrator::RecentFrames::keep_max) __builtin_trap();
            }
            if (!f->frames.empty() && recent.empty()) __builtin_trap();
        } else if (auto* hb = std::get_if<wire::Heartbeat>(&wm)) {
            stamp_ok(hb->t_ns, b);
            count_ok(hb->frames_emitted);
            acc.heartbeat_count = hb->frames_emitted;
        } else if (auto* e = std::get_if<wire::Event>(&wm)) {
            stamp_ok(e->t_ns, b);
        } else if (auto* y = std::get_if<wire::Bye>(&wm)) {
            count_ok(y->frames_sent);
            if (acc.bye(y->frames_sent).empty() && (*acc.bye_sent < acc.received || *acc.bye_sent > acc.next_seq))
                __builtin_trap();
        } else if (auto* h = std::get_if<wire::Hello>(&wm)) {
            stamp_ok(h->t_ns, b);
        }
    }
    // What the session's end row stores (frames_received, frames_lost as int64).
    if (acc.lost() > uint64_t(INT64_MAX) || acc.received > uint64_t(INT64_MAX)) __builtin_trap();
    (void)acc.detail();
    return 0;
}
