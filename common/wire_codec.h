#pragma once
// The byte-level codec of the wire framing (common/wire_protocol.h): a message writer that
// patches the payload length into the header, and a bounds-checked little-endian reader.
// Shared by the telemetry messages and the join messages (common/join_protocol.h), so the
// framing has one implementation. Internal to common/.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/wire_protocol.h"

namespace seatmark::wire::codec {

struct Writer {
    std::vector<uint8_t>& out;
    size_t start;  // where the header begins

    Writer(std::vector<uint8_t>& o, uint8_t type) : out(o), start(o.size()) {
        u16(magic);
        u8(version);
        u8(type);
        u32(0);  // length, patched by finish()
    }
    Writer(std::vector<uint8_t>& o, MessageType type) : Writer(o, static_cast<uint8_t>(type)) {}
    void u8(uint8_t v) { out.push_back(v); }
    void u16(uint16_t v) {
        out.push_back(static_cast<uint8_t>(v));
        out.push_back(static_cast<uint8_t>(v >> 8));
    }
    void u32(uint32_t v) {
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
    void u64(uint64_t v) {
        for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
    void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
    void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
    void f64(double v) { u64(std::bit_cast<uint64_t>(v)); }
    void str(const std::string& s) {
        size_t n = std::min(s.size(), max_string_bytes);
        u32(static_cast<uint32_t>(n));
        out.insert(out.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
    }
    void frame(const FrameRecord& r) {
        u64(r.seq);
        i64(r.t_begin_ns);
        i64(r.cpu_ns);
        i64(r.gpu_ns);
        i64(r.interval_ns);
        i64(r.latency_ns);
        u32(r.stretch);
        u16(r.mode);
        u16(r.flags);
        i64(r.begin_interval_ns);
        i64(r.t_present_ns);
    }
    void finish() {
        size_t len = out.size() - start - header_size;
        if (len > max_payload) {  // cannot happen with the string cap; never send what the peer must reject
            out.resize(start);
            throw std::length_error("wire message payload exceeds max_payload");
        }
        for (int i = 0; i < 4; ++i) out[start + 4 + i] = static_cast<uint8_t>(len >> (8 * i));
    }
};

// ---- decoding ----

struct Reader {
    const uint8_t* p;
    size_t left;
    bool ok = true;

    bool take(size_t n) {
        if (!ok || left < n) return ok = false;
        return true;
    }
    uint64_t le(size_t n) {
        if (!take(n)) return 0;
        uint64_t v = 0;
        for (size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
        p += n;
        left -= n;
        return v;
    }
    uint8_t u8() { return static_cast<uint8_t>(le(1)); }
    uint16_t u16() { return static_cast<uint16_t>(le(2)); }
    uint32_t u32() { return static_cast<uint32_t>(le(4)); }
    uint64_t u64() { return le(8); }
    int32_t i32() { return static_cast<int32_t>(u32()); }
    int64_t i64() { return static_cast<int64_t>(u64()); }
    double f64() { return std::bit_cast<double>(u64()); }
};

// Reads a string; false (and reader unusable) when the length runs past the payload.
inline bool read_str(Reader& r, std::string& s) {
    uint32_t n = r.u32();
    if (!r.ok || n > r.left) return r.ok = false;
    s.assign(reinterpret_cast<const char*>(r.p), n);
    r.p += n;
    r.left -= n;
    return true;
}

}  // namespace seatmark::wire::codec
