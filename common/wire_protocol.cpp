#include "common/wire_protocol.h"

#include "common/wire_codec.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <stdexcept>

namespace seatmark::wire {

std::string_view to_string(MessageType t) {
    switch (t) {
        case MessageType::hello: return "HELLO";
        case MessageType::frames: return "FRAMES";
        case MessageType::heartbeat: return "HEARTBEAT";
        case MessageType::event: return "EVENT";
        case MessageType::bye: return "BYE";
    }
    return "unknown";
}

std::string_view to_string(EventKind k) {
    switch (k) {
        case EventKind::info: return "info";
        case EventKind::warning: return "warning";
        case EventKind::error: return "error";
        case EventKind::device_lost: return "device_lost";
        case EventKind::software_fallback: return "software_fallback";
        case EventKind::model_open: return "model_open";
    }
    return "unknown";
}

bool Frames::operator==(const Frames& o) const {
    if (frames.size() != o.frames.size()) return false;
    for (size_t i = 0; i < frames.size(); ++i) {
        const auto &a = frames[i], &b = o.frames[i];
        if (a.seq != b.seq || a.t_begin_ns != b.t_begin_ns || a.cpu_ns != b.cpu_ns || a.gpu_ns != b.gpu_ns ||
            a.interval_ns != b.interval_ns || a.latency_ns != b.latency_ns || a.stretch != b.stretch ||
            a.mode != b.mode || a.flags != b.flags || a.begin_interval_ns != b.begin_interval_ns ||
            a.t_present_ns != b.t_present_ns)
            return false;
    }
    return true;
}

void set_summary(Bye& b, const stats::FrameSummary& s) {
    b.fps = s.fps;
    b.p50_ms = s.p50_ms;
    b.p95_ms = s.p95_ms;
    b.p99_ms = s.p99_ms;
    b.low1_fps = s.low1_fps;
    b.stutter = s.stutter;
    b.latency_p95_ms = s.latency_p95_ms;
    b.low1_tw_fps = s.low1_tw_fps;
    b.low1_min_fps = s.low1_min_fps;
    b.cpu_p50_ms = s.cpu_p50_ms;
    b.gpu_p50_ms = s.gpu_p50_ms;
    b.active_s = s.active_s;
    b.frames = s.frames;
    b.dropped = s.dropped;
}

namespace {

using codec::Is;
using codec::ListRule;

// The layouts (wire_codec.h): each written once for encoding and decoding.
template <class Io, Is<FrameRecord> M>
void fields(Io& io, M& x) {
    io(x.seq);
    io(x.t_begin_ns);
    io(x.cpu_ns);
    io(x.gpu_ns);
    io(x.interval_ns);
    io(x.latency_ns);
    io(x.stretch);
    io(x.mode);
    io(x.flags);
    io(x.begin_interval_ns);
    io(x.t_present_ns);
}

template <class Io, Is<Hello> M>
void fields(Io& io, M& h) {
    io(h.session_id);
    io(h.pid);
    for (auto* s : {&h.profile, &h.device_name, &h.device_type, &h.vendor, &h.driver_name, &h.driver_info,
                    &h.driver_version, &h.api_version})
        io(*s);
    io.flag(h.software, "HELLO software flag");
    io(h.device_index);
    io(h.vendor_id);
    io(h.device_id);
    io(h.width);
    io(h.height);
    io(h.msaa);
    io(h.scene_triangles);
    io(h.duration_s);
    io(h.t_ns);
}

// Bounded by max_payload, which the header was checked against.
constexpr ListRule frames_rule{"FRAMES", max_frames_per_message, frame_record_size, true};

template <class Io, Is<Frames> M>
void fields(Io& io, M& f) {
    io.list(f.frames, frames_rule, [](auto& o, auto& x) { fields(o, x); });
}

template <class Io, Is<Heartbeat> M>
void fields(Io& io, M& h) {
    io.fixed_size(16);
    io(h.t_ns);
    io(h.frames_emitted);
}

template <class Io, Is<Event> M>
void fields(Io& io, M& e) {
    io(e.t_ns);
    io(e.kind);  // any value of the underlying type is valid: to_string() says "unknown"
    io(e.text);
}

template <class Io, Is<Bye> M>
void fields(Io& io, M& b) {
    io(b.frames_sent);
    io(b.exit_code);
    for (auto* d : {&b.fps, &b.p50_ms, &b.p95_ms, &b.p99_ms, &b.low1_fps, &b.stutter, &b.latency_p95_ms,
                    &b.low1_tw_fps, &b.cpu_p50_ms, &b.gpu_p50_ms, &b.active_s, &b.wall_s, &b.cpu_s, &b.model_open_s,
                    &b.low1_min_fps})
        io(*d);
    io(b.frames);
    io(b.dropped);
    io(b.message);
}

constexpr auto layout = [](auto& io, auto& m) { fields(io, m); };

template <class M>
void put(std::vector<uint8_t>& out, MessageType t, const M& m) {
    codec::put_message(out, uint8_t(t), m, layout);
}

bool known(uint8_t t) { return t >= uint8_t(MessageType::hello) && t <= uint8_t(MessageType::bye); }
const char* name_of(uint8_t t) { return known(t) ? to_string(MessageType(t)).data() : "unknown"; }

std::string hex16(unsigned v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%04X", v);
    return b;
}

}  // namespace

void encode(std::vector<uint8_t>& out, const Hello& h) { put(out, MessageType::hello, h); }

void encode_frames(std::vector<uint8_t>& out, std::span<const FrameRecord> frames) {
    if (frames.size() > max_frames_per_message)
        throw std::length_error("FRAMES: " + std::to_string(frames.size()) + " frames exceed " +
                                std::to_string(max_frames_per_message) + " per message");
    out.reserve(out.size() + header_size + 4 + frames.size() * frame_record_size);
    codec::Writer w(out, MessageType::frames);
    codec::Put p{w};
    w.u32(static_cast<uint32_t>(frames.size()));
    for (const auto& r : frames) fields(p, r);
    w.finish();
}

void encode(std::vector<uint8_t>& out, const Frames& f) { encode_frames(out, f.frames); }
void encode(std::vector<uint8_t>& out, const Heartbeat& h) { put(out, MessageType::heartbeat, h); }
void encode(std::vector<uint8_t>& out, const Event& e) { put(out, MessageType::event, e); }
void encode(std::vector<uint8_t>& out, const Bye& b) { put(out, MessageType::bye, b); }

void encode(std::vector<uint8_t>& out, const Message& m) {
    std::visit([&out](const auto& x) { encode(out, x); }, m);
}

std::string decode_payload(MessageType type, std::span<const uint8_t> payload, Message& out) {
    const auto t = uint8_t(type);
    if (!known(t)) return "unknown message type " + std::to_string(unsigned(t));
    return codec::get_alternative(t - uint8_t(MessageType::hello), name_of(t), payload.data(), payload.size(), out,
                                  layout);
}

DecodeStatus Framer::fail(std::string why) {
    error_ = std::move(why);
    buf_.clear();
    buf_.shrink_to_fit();
    pos_ = next_ = 0;
    return DecodeStatus::error;
}

void Framer::feed(const uint8_t* data, size_t n) {
    if (failed() || n == 0) return;
    if (pos_ > 0 && pos_ >= buf_.size() / 2) {  // drop what was decoded before growing
        buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
        next_ -= std::min(next_, pos_);
        pos_ = 0;
    }
    buf_.insert(buf_.end(), data, data + n);
}

DecodeStatus Framer::peek(bool (*known_type)(uint8_t), const char* (*name)(uint8_t), uint32_t limit, uint8_t& type,
                          std::span<const uint8_t>& payload) {
    if (failed()) return DecodeStatus::error;
    const size_t avail = buf_.size() - pos_;
    const uint8_t* h = buf_.data() + pos_;
    if (avail >= 2) {
        unsigned m = unsigned(h[0]) | unsigned(h[1]) << 8;
        if (m != magic) return fail("bad magic " + hex16(m));
    }
    if (avail >= 3 && h[2] != version) return fail("unsupported version " + std::to_string(h[2]));
    if (avail >= 4 && !known_type(h[3])) return fail("unknown message type " + std::to_string(h[3]));
    if (avail < header_size) return DecodeStatus::need_more;
    const uint32_t len = uint32_t(h[4]) | uint32_t(h[5]) << 8 | uint32_t(h[6]) << 16 | uint32_t(h[7]) << 24;
    if (len > limit)
        return fail(std::string(name(h[3])) + " payload " + std::to_string(len) + " bytes exceeds limit " +
                    std::to_string(limit));
    if (avail < header_size + len) return DecodeStatus::need_more;
    type = h[3];
    payload = {h + header_size, len};
    next_ = pos_ + header_size + len;
    return DecodeStatus::ok;
}

void Framer::consume() {
    pos_ = next_;
    if (pos_ == buf_.size()) {
        buf_.clear();
        pos_ = next_ = 0;
    }
}

DecodeStatus Decoder::next(Message& out) {
    uint8_t type = 0;
    std::span<const uint8_t> payload;
    DecodeStatus st = framer_.peek(known, name_of, max_payload, type, payload);
    if (st != DecodeStatus::ok) return st;
    std::string why = decode_payload(static_cast<MessageType>(type), payload, out);
    if (!why.empty()) return framer_.fail(std::move(why));
    framer_.consume();
    return DecodeStatus::ok;
}

}  // namespace seatmark::wire
