#include "core/peer_stamps.h"

#include <cstdio>
#include <variant>

namespace seatmark::core {

namespace {

std::string seconds(double ns) {
    char b[48];
    std::snprintf(b, sizeof b, "%.6g s", ns * 1e-9);
    return b;
}

std::string micros(int64_t ns) {
    char b[48];
    std::snprintf(b, sizeof b, "%+.3f us", double(ns) / 1e3);
    return b;
}

// The stamps of one message, checked against one connection's life. Error texts are built only
// for an error (this runs for every frame received).
class Stamps {
public:
    Stamps(const PeerClock& c, int64_t now) : c_(c), now_(now) {
        const int64_t unc = c.uncertainty_ns > 0 ? c.uncertainty_ns : 0;
        int64_t slack = 0;
        if (__builtin_add_overflow(unc, stamp_margin_ns, &slack)) slack = INT64_MAX;
        if (__builtin_sub_overflow(c.opened_ns, slack, &lo_)) lo_ = INT64_MIN;
        if (__builtin_add_overflow(now, slack, &hi_)) hi_ = INT64_MAX;
    }

    // Converts `t` (0 stays 0); false with why_ set when it cannot be true. `what` names it.
    template <class What>
    bool operator()(int64_t& t, What what) {
        if (t == 0) return true;
        if (t < 1 || t > max_clock_ns) {
            why_ = what() + " " + std::to_string(t) + " is not a monotonic clock reading (expected 1 .. 2^62 ns, or 0 for none)";
            return false;
        }
        int64_t local = 0;
        if (!__builtin_add_overflow(t, c_.offset_ns, &local) && local >= lo_ && local <= hi_) {
            t = local;
            return true;
        }
        // In double: the sum may not fit.
        const double at = double(t) + double(c_.offset_ns);
        const bool early = at < double(lo_);
        why_ = what() + " " + std::to_string(t) + " lies, with the connection's clock offset " + micros(c_.offset_ns) +
               " +- " + micros(c_.uncertainty_ns).substr(1) + ", " +
               (early ? seconds(double(c_.opened_ns) - at) + " before the connection opened"
                      : seconds(at - double(now_)) + " after it arrived") +
               " (at most " + seconds(double(stamp_margin_ns)) +
               " plus that uncertainty is possible): the peer's clock or its stamps cannot be true";
        return false;
    }
    template <class What>
    bool count(uint64_t n, What what) {
        if (n <= max_count) return true;
        why_ = count_ok(n, what());
        return false;
    }
    std::string why() { return std::move(why_); }

private:
    const PeerClock& c_;
    int64_t now_, lo_ = 0, hi_ = 0;
    std::string why_;
};

auto named(const char* s) {
    return [s] { return std::string(s); };
}

}  // namespace

std::string clock_reading(int64_t t, std::string_view what) {
    if (t >= 1 && t <= max_clock_ns) return {};
    return std::string(what) + " " + std::to_string(t) + " is not a monotonic clock reading (expected 1 .. 2^62 ns)";
}

std::string count_ok(uint64_t n, std::string_view what) {
    if (n <= max_count) return {};
    return std::string(what) + " " + std::to_string(n) + " exceeds 2^53 (" + std::to_string(max_count) +
           "): more than any peer can count";
}

std::string admit(wire::Message& m, const PeerClock& c, int64_t now_ns) {
    Stamps s(c, now_ns);
    if (auto* h = std::get_if<wire::Hello>(&m)) {
        if (!s(h->t_ns, named("HELLO t_ns"))) return s.why();
    } else if (auto* f = std::get_if<wire::Frames>(&m)) {
        for (auto& r : f->frames) {
            auto field = [&r](const char* name) {
                return [&r, name] { return "FRAMES frame seq " + std::to_string(r.seq) + " " + name; };
            };
            if (!s.count(r.seq, [] { return std::string("FRAMES frame seq"); }) ||
                !s(r.t_begin_ns, field("t_begin_ns")) || !s(r.t_present_ns, field("t_present_ns")))
                return s.why();
        }
    } else if (auto* hb = std::get_if<wire::Heartbeat>(&m)) {
        if (!s(hb->t_ns, named("HEARTBEAT t_ns")) || !s.count(hb->frames_emitted, named("HEARTBEAT frames_emitted")))
            return s.why();
    } else if (auto* e = std::get_if<wire::Event>(&m)) {
        if (!s(e->t_ns, named("EVENT t_ns"))) return s.why();
    } else if (auto* b = std::get_if<wire::Bye>(&m)) {
        if (!s.count(b->frames_sent, named("BYE frames_sent")) || !s.count(b->frames, named("BYE frames")) ||
            !s.count(b->dropped, named("BYE dropped")))
            return s.why();
    }
    return {};
}

std::string admit(join::JoinMessage& m, const PeerClock& c, int64_t now_ns) {
    Stamps s(c, now_ns);
    if (auto* sm = std::get_if<join::Samples>(&m)) {
        if (!s(sm->t_ns, named("SAMPLES t_ns"))) return s.why();
    } else if (auto* st = std::get_if<join::LogonState>(&m)) {
        if (!s(st->t_ns, named("LOGON_STATE t_ns")) || !s.count(st->payload_bytes, named("LOGON_STATE payload_bytes")) ||
            !s.count(st->paints, named("LOGON_STATE paints")) || !s.count(st->unreadable, named("LOGON_STATE unreadable")))
            return s.why();
    } else if (auto* a = std::get_if<join::Arrivals>(&m)) {
        for (auto& x : a->arrivals)
            if (!s.count(x.seq, named("ARRIVALS seq")) || !s(x.t_ns, [&x] { return "ARRIVALS seq " + std::to_string(x.seq) + " t_ns"; }))
                return s.why();
        for (auto& x : a->ssim)
            if (!s.count(x.seq, named("ARRIVALS SSIM seq"))) return s.why();
        if (!s.count(a->payload_bytes, named("ARRIVALS payload_bytes"))) return s.why();
    } else if (auto* ask = std::get_if<join::RefAsk>(&m)) {
        if (!s.count(ask->seq, named("REF_ASK seq"))) return s.why();
    } else if (auto* ref = std::get_if<join::Reference>(&m)) {
        if (!s.count(ref->seq, named("REFERENCE seq"))) return s.why();
    }
    return {};
}

}  // namespace seatmark::core
