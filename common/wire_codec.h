#pragma once
// The byte-level codec of the wire framing (common/wire_protocol.h): a message writer that
// patches the payload length into the header, and a bounds-checked little-endian reader.
// Shared by the telemetry messages and the join messages (common/join_protocol.h), so the
// framing has one implementation. Internal to common/.
#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
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
        // One load on a little-endian host (every FRAMES record is 11 of these).
        if constexpr (std::endian::native == std::endian::little)
            std::memcpy(&v, p, n);
        else
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

// ---- layouts ----
//
// A message's layout is written once, as `fields(io, m)` over an Io that is Put (encoding a
// const message) or Get (decoding into one), so encoder and decoder cannot drift apart:
//     template <class Io, Is<Ping> M> void fields(Io& io, M& m) { io(m.seq); io(m.t_orch_ns); }
// Get checks as it reads: the first failure is the message's error (a value out of range, a
// count its payload cannot hold, or "truncated ..." when the payload ends early); after it
// nothing more is read or sized.

template <class M, class T>
concept Is = std::same_as<std::remove_const_t<M>, T>;

// A u32 count and its entries. Entries take at least entry_bytes each (exact: exactly, and
// nothing follows them), so a count is checked against the payload before anything is sized.
struct ListRule {
    const char* what;    // "WATCH", "ARRIVALS SSIM": names the count in errors
    uint32_t max;        // at most this many (the encoder refuses more)
    size_t entry_bytes;  // bytes each entry takes on the wire, at least
    bool exact = false;  // the entries are the rest of the payload
};

struct Put {
    Writer& w;
    static constexpr bool decoding = false;

    void operator()(uint8_t v) { w.u8(v); }
    void operator()(uint16_t v) { w.u16(v); }
    void operator()(uint32_t v) { w.u32(v); }
    void operator()(uint64_t v) { w.u64(v); }
    void operator()(int32_t v) { w.i32(v); }
    void operator()(int64_t v) { w.i64(v); }
    void operator()(double v) { w.f64(v); }
    void operator()(const std::string& s) { w.str(s); }
    template <size_t N>
    void operator()(const std::array<uint8_t, N>& a) { w.out.insert(w.out.end(), a.begin(), a.end()); }
    template <class E>
        requires std::is_enum_v<E>
    void operator()(E e) { (*this)(static_cast<std::underlying_type_t<E>>(e)); }
    void flag(bool v, const char*) { w.u8(v ? 1 : 0); }
    // Checks belong to decoding; a message built here is the sender's own.
    template <class Why>
    void check(bool, Why&&) {}
    void fixed_size(size_t) {}
    template <class T, class Each>
    void list(const std::vector<T>& v, const ListRule& rule, Each each) {
        if (v.size() > rule.max)  // never send what the peer must reject
            throw std::length_error(std::string(rule.what) + ": " + std::to_string(v.size()) + " entries exceed " +
                                    std::to_string(rule.max) + " per message");
        w.u32(static_cast<uint32_t>(v.size()));
        for (const T& e : v) each(*this, e);
    }
    // Raw bytes that run to the end of the payload; `expected` is what the decoder will demand.
    template <class Why>
    void rest(const std::vector<uint8_t>& v, size_t, size_t, Why&&) { w.out.insert(w.out.end(), v.begin(), v.end()); }
};

struct Get {
    Reader r;
    const char* name;  // "HELLO", "JOIN": names the message in errors
    size_t payload;    // its whole size
    std::string error;
    static constexpr bool decoding = true;

    Get(const uint8_t* p, size_t n, const char* message_name) : r{p, n}, name(message_name), payload(n) {}

    void fail(std::string why) {
        if (error.empty()) error = std::move(why);
        r.ok = false;
    }
    bool ok() const { return r.ok; }

    void operator()(uint8_t& v) { v = r.u8(); }
    void operator()(uint16_t& v) { v = r.u16(); }
    void operator()(uint32_t& v) { v = r.u32(); }
    void operator()(uint64_t& v) { v = r.u64(); }
    void operator()(int32_t& v) { v = r.i32(); }
    void operator()(int64_t& v) { v = r.i64(); }
    void operator()(double& v) { v = r.f64(); }
    void operator()(std::string& s) {
        if (r.ok && !read_str(r, s)) fail("truncated string in " + std::string(name));
    }
    template <size_t N>
    void operator()(std::array<uint8_t, N>& a) {
        if (!r.take(N)) return;
        std::memcpy(a.data(), r.p, N);
        r.p += N;
        r.left -= N;
    }
    template <class E>
        requires std::is_enum_v<E>
    void operator()(E& e) {  // any value of the underlying type; check() what a field allows
        std::underlying_type_t<E> v{};
        (*this)(v);
        e = static_cast<E>(v);
    }
    void flag(bool& v, const char* what) {
        uint8_t b = r.u8();
        if (r.ok && b > 1) fail(std::string(what) + " " + std::to_string(b) + " is not 0 or 1");
        v = b == 1;
    }
    template <class Why>
    void check(bool good, Why&& why) {
        if (r.ok && !good) fail(why());
    }
    void fixed_size(size_t n) {
        if (r.left != n)
            fail(std::string(name) + " payload " + std::to_string(r.left) + " bytes, expected " + std::to_string(n));
    }
    template <class T, class Each>
    void list(std::vector<T>& v, const ListRule& rule, Each each) {
        uint32_t n = r.u32();
        if (!r.ok) return;
        // The error text is built only for an error (this runs for every FRAMES message).
        auto count = [&] { return std::string(rule.what) + " count " + std::to_string(n); };
        if (rule.exact && r.left != uint64_t(n) * rule.entry_bytes)
            return fail(count() + " does not match payload " + std::to_string(payload) + " bytes");
        if (n > rule.max || uint64_t(n) * rule.entry_bytes > r.left)
            return fail(count() + " does not fit its payload (at most " + std::to_string(rule.max) + ")");
        v.resize(n);
        for (T& e : v) {
            each(*this, e);
            if (!r.ok) return;
        }
    }
    template <class Why>
    void rest(std::vector<uint8_t>& v, size_t max, size_t expected, Why&& why) {
        if (!r.ok) return;
        if (expected > max || expected != r.left) return fail(why());
        v.assign(r.p, r.p + expected);
        r.p += expected;
        r.left = 0;
    }
    // "" when the whole payload was one good message, else why not.
    std::string finish() {
        if (!error.empty()) return error;
        if (!r.ok) return "truncated " + std::string(name) + " payload";
        if (r.left != 0) return "trailing " + std::to_string(r.left) + " bytes in " + name + " payload";
        return {};
    }
};

// Encodes `m` (laid out by an ADL- or namespace-visible `fields`) as one message of `type`.
template <class M, class Fields>
void put_message(std::vector<uint8_t>& out, uint8_t type, const M& m, Fields fields) {
    Writer w(out, type);
    Put p{w};
    fields(p, m);
    w.finish();
}

// Decodes one payload into alternative `index` of the variant V; "" on success or why not.
template <class V, class Fields, size_t I = 0>
std::string get_alternative(size_t index, const char* name, const uint8_t* p, size_t n, V& out, Fields fields) {
    if constexpr (I < std::variant_size_v<V>) {
        if (index != I) return get_alternative<V, Fields, I + 1>(index, name, p, n, out, fields);
        std::variant_alternative_t<I, V> m;
        Get g(p, n, name);
        fields(g, m);
        std::string why = g.finish();
        if (why.empty()) out = std::move(m);
        return why;
    } else {
        return "unknown message type";
    }
}

}  // namespace seatmark::wire::codec
