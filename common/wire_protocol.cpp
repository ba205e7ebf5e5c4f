#include "common/wire_protocol.h"

#include "common/wire_codec.h"

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

using codec::Reader;
using codec::Writer;
using codec::read_str;

std::string trailing(size_t n, MessageType t) {
    return "trailing " + std::to_string(n) + " bytes in " + std::string(to_string(t)) + " payload";
}
std::string truncated(MessageType t) { return "truncated " + std::string(to_string(t)) + " payload"; }
std::string truncated_string(MessageType t) { return "truncated string in " + std::string(to_string(t)); }

std::string decode_hello(Reader& r, Hello& h) {
    const auto t = MessageType::hello;
    h.session_id = r.u32();
    h.pid = r.u32();
    if (!r.ok) return truncated(t);
    for (std::string* s : {&h.profile, &h.device_name, &h.device_type, &h.vendor, &h.driver_name, &h.driver_info,
                           &h.driver_version, &h.api_version})
        if (!read_str(r, *s)) return truncated_string(t);
    uint8_t sw = r.u8();
    h.device_index = r.u32();
    h.vendor_id = r.u32();
    h.device_id = r.u32();
    h.width = r.u32();
    h.height = r.u32();
    h.msaa = r.u32();
    h.scene_triangles = r.u64();
    h.duration_s = r.f64();
    h.t_ns = r.i64();
    if (!r.ok) return truncated(t);
    if (sw > 1) return "HELLO software flag " + std::to_string(sw) + " is not 0 or 1";
    h.software = sw == 1;
    return {};
}

std::string decode_frames(Reader& r, Frames& f) {
    const size_t payload = r.left;
    uint32_t count = r.u32();
    if (!r.ok) return truncated(MessageType::frames);
    if (payload != 4 + uint64_t(count) * frame_record_size)
        return "FRAMES count " + std::to_string(count) + " does not match payload " + std::to_string(payload) +
               " bytes";
    f.frames.resize(count);  // bounded: payload <= max_payload was checked against the header
    for (auto& x : f.frames) {
        x.seq = r.u64();
        x.t_begin_ns = r.i64();
        x.cpu_ns = r.i64();
        x.gpu_ns = r.i64();
        x.interval_ns = r.i64();
        x.latency_ns = r.i64();
        x.stretch = r.u32();
        x.mode = r.u16();
        x.flags = r.u16();
        x.begin_interval_ns = r.i64();
        x.t_present_ns = r.i64();
    }
    return {};
}

std::string decode_heartbeat(Reader& r, Heartbeat& h) {
    if (r.left != 16) return "HEARTBEAT payload " + std::to_string(r.left) + " bytes, expected 16";
    h.t_ns = r.i64();
    h.frames_emitted = r.u64();
    return {};
}

std::string decode_event(Reader& r, Event& e) {
    const auto t = MessageType::event;
    e.t_ns = r.i64();
    e.kind = static_cast<EventKind>(r.u16());  // any value of the underlying type is valid
    if (!r.ok) return truncated(t);
    if (!read_str(r, e.text)) return truncated_string(t);
    return {};
}

std::string decode_bye(Reader& r, Bye& b) {
    const auto t = MessageType::bye;
    b.frames_sent = r.u64();
    b.exit_code = r.i32();
    for (double* d : {&b.fps, &b.p50_ms, &b.p95_ms, &b.p99_ms, &b.low1_fps, &b.stutter, &b.latency_p95_ms,
                      &b.low1_tw_fps, &b.cpu_p50_ms, &b.gpu_p50_ms, &b.active_s, &b.wall_s, &b.cpu_s, &b.model_open_s,
                      &b.low1_min_fps})
        *d = r.f64();
    b.frames = r.u64();
    b.dropped = r.u64();
    if (!r.ok) return truncated(t);
    if (!read_str(r, b.message)) return truncated_string(t);
    return {};
}

template <class M>
std::string decode_into(std::string (*fn)(Reader&, M&), MessageType t, std::span<const uint8_t> payload,
                        Message& out) {
    Reader r{payload.data(), payload.size()};
    M m;
    std::string why = fn(r, m);
    if (!why.empty()) return why;
    if (r.left != 0) return trailing(r.left, t);
    out = std::move(m);
    return {};
}

std::string hex16(unsigned v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%04X", v);
    return b;
}

}  // namespace

void encode(std::vector<uint8_t>& out, const Hello& h) {
    Writer w(out, MessageType::hello);
    w.u32(h.session_id);
    w.u32(h.pid);
    for (const std::string* s : {&h.profile, &h.device_name, &h.device_type, &h.vendor, &h.driver_name,
                                 &h.driver_info, &h.driver_version, &h.api_version})
        w.str(*s);
    w.u8(h.software ? 1 : 0);
    w.u32(h.device_index);
    w.u32(h.vendor_id);
    w.u32(h.device_id);
    w.u32(h.width);
    w.u32(h.height);
    w.u32(h.msaa);
    w.u64(h.scene_triangles);
    w.f64(h.duration_s);
    w.i64(h.t_ns);
    w.finish();
}

void encode_frames(std::vector<uint8_t>& out, std::span<const FrameRecord> frames) {
    if (frames.size() > max_frames_per_message)
        throw std::length_error("FRAMES: " + std::to_string(frames.size()) + " frames exceed " +
                                std::to_string(max_frames_per_message) + " per message");
    out.reserve(out.size() + header_size + 4 + frames.size() * frame_record_size);
    Writer w(out, MessageType::frames);
    w.u32(static_cast<uint32_t>(frames.size()));
    for (const auto& r : frames) w.frame(r);
    w.finish();
}

void encode(std::vector<uint8_t>& out, const Frames& f) { encode_frames(out, f.frames); }

void encode(std::vector<uint8_t>& out, const Heartbeat& h) {
    Writer w(out, MessageType::heartbeat);
    w.i64(h.t_ns);
    w.u64(h.frames_emitted);
    w.finish();
}

void encode(std::vector<uint8_t>& out, const Event& e) {
    Writer w(out, MessageType::event);
    w.i64(e.t_ns);
    w.u16(static_cast<uint16_t>(e.kind));
    w.str(e.text);
    w.finish();
}

void encode(std::vector<uint8_t>& out, const Bye& b) {
    Writer w(out, MessageType::bye);
    w.u64(b.frames_sent);
    w.i32(b.exit_code);
    for (double d : {b.fps, b.p50_ms, b.p95_ms, b.p99_ms, b.low1_fps, b.stutter, b.latency_p95_ms, b.low1_tw_fps,
                     b.cpu_p50_ms, b.gpu_p50_ms, b.active_s, b.wall_s, b.cpu_s, b.model_open_s, b.low1_min_fps})
        w.f64(d);
    w.u64(b.frames);
    w.u64(b.dropped);
    w.str(b.message);
    w.finish();
}

void encode(std::vector<uint8_t>& out, const Message& m) {
    std::visit([&out](const auto& x) { encode(out, x); }, m);
}

std::string decode_payload(MessageType type, std::span<const uint8_t> payload, Message& out) {
    switch (type) {
        case MessageType::hello: return decode_into<Hello>(decode_hello, type, payload, out);
        case MessageType::frames: return decode_into<Frames>(decode_frames, type, payload, out);
        case MessageType::heartbeat: return decode_into<Heartbeat>(decode_heartbeat, type, payload, out);
        case MessageType::event: return decode_into<Event>(decode_event, type, payload, out);
        case MessageType::bye: return decode_into<Bye>(decode_bye, type, payload, out);
    }
    return "unknown message type " + std::to_string(static_cast<unsigned>(type));
}

DecodeStatus Decoder::fail(std::string why) {
    error_ = std::move(why);
    buf_.clear();
    buf_.shrink_to_fit();
    pos_ = 0;
    return DecodeStatus::error;
}

void Decoder::feed(const uint8_t* data, size_t n) {
    if (failed() || n == 0) return;
    if (pos_ > 0 && pos_ >= buf_.size() / 2) {  // drop what was decoded before growing
        buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
        pos_ = 0;
    }
    buf_.insert(buf_.end(), data, data + n);
}

DecodeStatus Decoder::next(Message& out) {
    if (failed()) return DecodeStatus::error;
    const size_t avail = buf_.size() - pos_;
    const uint8_t* h = buf_.data() + pos_;
    // Check what the header gives as soon as it arrives, byte by byte, so a bad
    // stream fails at its first wrong byte rather than waiting for a length.
    if (avail >= 2) {
        unsigned m = unsigned(h[0]) | unsigned(h[1]) << 8;
        if (m != magic) return fail("bad magic " + hex16(m));
    }
    if (avail >= 3 && h[2] != version) return fail("unsupported version " + std::to_string(h[2]));
    if (avail >= 4 && (h[3] < uint8_t(MessageType::hello) || h[3] > uint8_t(MessageType::bye)))
        return fail("unknown message type " + std::to_string(h[3]));
    if (avail < header_size) return DecodeStatus::need_more;
    const uint32_t len = uint32_t(h[4]) | uint32_t(h[5]) << 8 | uint32_t(h[6]) << 16 | uint32_t(h[7]) << 24;
    if (len > max_payload)
        return fail("payload " + std::to_string(len) + " bytes exceeds limit " + std::to_string(max_payload));
    if (avail < header_size + len) return DecodeStatus::need_more;
    const auto type = static_cast<MessageType>(h[3]);
    std::string why = decode_payload(type, {h + header_size, len}, out);
    if (!why.empty()) return fail(std::move(why));
    pos_ += header_size + len;
    if (pos_ == buf_.size()) {
        buf_.clear();
        pos_ = 0;
    }
    return DecodeStatus::ok;
}

}  // namespace seatmark::wire
