#include "common/join_protocol.h"

#include <cstdio>
#include <cstring>

#include "common/wire_codec.h"

namespace seatmark::join {

using wire::codec::read_str;
using wire::codec::Reader;
using wire::codec::Writer;

std::string_view to_string(Role r) { return r == Role::agent ? "agent" : r == Role::launcher ? "launcher" : "session"; }

const char* type_name(uint8_t t) {
    switch (t) {
        case 1: return "HELLO";
        case 2: return "FRAMES";
        case 3: return "HEARTBEAT";
        case 4: return "EVENT";
        case 5: return "BYE";
        case 16: return "CHALLENGE";
        case 17: return "JOIN";
        case 18: return "WELCOME";
        case 19: return "REFUSED";
        case 20: return "PING";
        case 21: return "PONG";
        case 22: return "START";
        case 23: return "STOP";
        case 24: return "WATCH";
        case 25: return "SAMPLES";
        case 26: return "LOGON";
        case 27: return "LOGOFF";
        case 28: return "LOGON_STATE";
        case 29: return "ARRIVALS";
        case 30: return "REF_ASK";
        case 31: return "REFERENCE";
    }
    return "unknown";
}

namespace {

template <size_t N>
void bytes(Writer& w, const std::array<uint8_t, N>& a) {
    w.out.insert(w.out.end(), a.begin(), a.end());
}
template <size_t N>
bool read_bytes(Reader& r, std::array<uint8_t, N>& a) {
    if (!r.take(N)) return false;
    std::memcpy(a.data(), r.p, N);
    r.p += N;
    r.left -= N;
    return true;
}

uint8_t type_of(const JoinMessage& m) { return static_cast<uint8_t>(m.index() + uint8_t(Type::challenge)); }

void join_fields(Writer& w, const Join& j) {
    w.u8(static_cast<uint8_t>(j.role));
    bytes(w, j.client_nonce);
    w.str(j.host);
    w.str(j.user);
    w.str(j.os_session);
    w.u32(j.pid);
    w.str(j.device);
    w.str(j.tool_version);
}

struct Encoder {
    Writer& w;
    void operator()(const Challenge& c) {
        w.u16(c.version);
        bytes(w, c.nonce);
    }
    void operator()(const Join& j) {
        join_fields(w, j);
        bytes(w, j.mac);
    }
    void operator()(const Welcome& m) {
        bytes(w, m.mac);
        w.u32(m.id);
        w.str(m.device);
        w.u8(m.allow_software ? 1 : 0);
        w.f64(m.heartbeat_timeout_s);
        w.f64(m.duration_s);
    }
    void operator()(const Refused& m) { w.str(m.reason); }
    void operator()(const Ping& m) {
        w.u32(m.seq);
        w.i64(m.t_orch_ns);
    }
    void operator()(const Pong& m) {
        w.u32(m.seq);
        w.i64(m.t_orch_ns);
        w.i64(m.t_peer_ns);
    }
    void operator()(const Start& m) {
        w.u32(m.session_id);
        w.str(m.profile_name);
        w.str(m.profile_text);
    }
    void operator()(const Stop&) {}
    void operator()(const Watch& m) {
        w.u32(static_cast<uint32_t>(m.sessions.size()));
        for (const auto& e : m.sessions) {
            w.u32(e.session_id);
            w.u32(e.pid);
            w.u8(e.renderer);
        }
    }
    void operator()(const Logon& m) { w.u32(m.count); }
    void operator()(const Logoff& m) { w.str(m.user); }
    void operator()(const LogonState& m) {
        w.str(m.host);
        w.str(m.user);
        w.str(m.rdp_host);
        w.u8(m.state);
        w.i64(m.t_ns);
        w.str(m.fault);
        w.str(m.detail);
        w.str(m.codec);
        w.u64(m.payload_bytes);
        w.u64(m.paints);
        w.u64(m.unreadable);
        w.f64(m.bytes_per_s);
    }
    void operator()(const Arrivals& m) {
        w.str(m.host);
        w.str(m.user);
        w.u32(static_cast<uint32_t>(m.arrivals.size()));
        for (const auto& a : m.arrivals) {
            w.u64(a.seq);
            w.i64(a.t_ns);
        }
        w.u32(static_cast<uint32_t>(m.ssim.size()));
        for (const auto& s : m.ssim) {
            w.u64(s.seq);
            w.f64(s.ssim);
        }
        w.str(m.codec);
        w.u64(m.payload_bytes);
    }
    void operator()(const RefAsk& m) {
        w.str(m.host);
        w.str(m.user);
        w.u64(m.seq);
    }
    void operator()(const Reference& m) {
        w.str(m.user);
        w.u64(m.seq);
        w.u16(m.width);
        w.u16(m.height);
        w.u16(m.gray_width);
        w.u16(m.gray_height);
        if (m.gray_width == 0) w.str(m.reason);
        else w.out.insert(w.out.end(), m.gray.begin(), m.gray.end());
    }
    void operator()(const Samples& m) {
        w.i64(m.t_ns);
        w.u32(static_cast<uint32_t>(m.rows.size()));
        for (const auto& r : m.rows) {
            w.i32(r.session_id);
            w.str(r.source);
            w.str(r.metric);
            w.f64(r.value);
        }
    }
};

std::string decode_body(Type t, Reader& r, JoinMessage& out) {
    const std::string name = type_name(uint8_t(t));
    const std::string truncated = "truncated " + name + " payload";
    switch (t) {
        case Type::challenge: {
            Challenge c;
            c.version = r.u16();
            if (!read_bytes(r, c.nonce)) return truncated;
            out = c;
            return {};
        }
        case Type::join: {
            Join j;
            uint8_t role = r.u8();
            if (!r.ok) return truncated;
            if (role < 1 || role > 3)
                return "JOIN role " + std::to_string(role) + " is not 1 (session), 2 (agent) or 3 (launcher)";
            j.role = static_cast<Role>(role);
            if (!read_bytes(r, j.client_nonce)) return truncated;
            for (std::string* s : {&j.host, &j.user, &j.os_session})
                if (!read_str(r, *s)) return truncated;
            j.pid = r.u32();
            for (std::string* s : {&j.device, &j.tool_version})
                if (!read_str(r, *s)) return truncated;
            if (!read_bytes(r, j.mac)) return truncated;
            out = std::move(j);
            return {};
        }
        case Type::welcome: {
            Welcome m;
            if (!read_bytes(r, m.mac)) return truncated;
            m.id = r.u32();
            if (!read_str(r, m.device)) return truncated;
            uint8_t sw = r.u8();
            m.heartbeat_timeout_s = r.f64();
            m.duration_s = r.f64();
            if (!r.ok) return truncated;
            if (sw > 1) return "WELCOME allow_software " + std::to_string(sw) + " is not 0 or 1";
            m.allow_software = sw == 1;
            out = std::move(m);
            return {};
        }
        case Type::refused: {
            Refused m;
            if (!read_str(r, m.reason)) return truncated;
            out = std::move(m);
            return {};
        }
        case Type::ping: {
            Ping m;
            m.seq = r.u32();
            m.t_orch_ns = r.i64();
            out = m;
            return r.ok ? "" : truncated;
        }
        case Type::pong: {
            Pong m;
            m.seq = r.u32();
            m.t_orch_ns = r.i64();
            m.t_peer_ns = r.i64();
            out = m;
            return r.ok ? "" : truncated;
        }
        case Type::start: {
            Start m;
            m.session_id = r.u32();
            if (!read_str(r, m.profile_name) || !read_str(r, m.profile_text)) return truncated;
            out = std::move(m);
            return {};
        }
        case Type::stop: out = Stop{}; return {};
        case Type::watch: {
            Watch m;
            uint32_t n = r.u32();
            if (!r.ok) return truncated;
            if (n > max_watch) return "WATCH count " + std::to_string(n) + " exceeds " + std::to_string(max_watch);
            if (r.left != size_t(n) * 9) return "WATCH count " + std::to_string(n) + " does not match its payload";
            m.sessions.resize(n);
            for (auto& e : m.sessions) {
                e.session_id = r.u32();
                e.pid = r.u32();
                e.renderer = r.u8();
                if (e.renderer > 2) return "WATCH renderer " + std::to_string(e.renderer) + " is not 0, 1 or 2";
            }
            out = std::move(m);
            return {};
        }
        case Type::samples: {
            Samples m;
            m.t_ns = r.i64();
            uint32_t n = r.u32();
            if (!r.ok) return truncated;
            // Each row takes at least 20 bytes, so a count the payload cannot hold is refused
            // before anything is sized by it.
            if (n > max_samples || size_t(n) * 20 > r.left)
                return "SAMPLES count " + std::to_string(n) + " does not fit its payload (at most " +
                       std::to_string(max_samples) + ")";
            m.rows.resize(n);
            for (auto& s : m.rows) {
                s.session_id = r.i32();
                if (!read_str(r, s.source) || !read_str(r, s.metric)) return truncated;
                s.value = r.f64();
            }
            if (!r.ok) return truncated;
            out = std::move(m);
            return {};
        }
        case Type::logon: {
            Logon m;
            m.count = r.u32();
            if (!r.ok) return truncated;
            if (m.count > max_watch) return "LOGON count " + std::to_string(m.count) + " exceeds " + std::to_string(max_watch);
            out = m;
            return {};
        }
        case Type::logoff: {
            Logoff m;
            if (!read_str(r, m.user)) return truncated;
            out = std::move(m);
            return {};
        }
        case Type::logon_state: {
            LogonState m;
            for (std::string* s : {&m.host, &m.user, &m.rdp_host})
                if (!read_str(r, *s)) return truncated;
            m.state = r.u8();
            m.t_ns = r.i64();
            for (std::string* s : {&m.fault, &m.detail, &m.codec})
                if (!read_str(r, *s)) return truncated;
            m.payload_bytes = r.u64();
            m.paints = r.u64();
            m.unreadable = r.u64();
            m.bytes_per_s = r.f64();
            if (!r.ok) return truncated;
            if (m.state != LogonState::connecting && m.state != LogonState::ended)
                return "LOGON_STATE state " + std::to_string(m.state) + " is not 1 (connecting) or 2 (ended)";
            out = std::move(m);
            return {};
        }
        case Type::arrivals: {
            Arrivals m;
            if (!read_str(r, m.host) || !read_str(r, m.user)) return truncated;
            uint32_t n = r.u32();
            if (!r.ok) return truncated;
            // Counts are checked against the payload before anything is sized by them.
            if (n > max_arrivals || size_t(n) * 16 > r.left)
                return "ARRIVALS count " + std::to_string(n) + " does not fit its payload (at most " + std::to_string(max_arrivals) + ")";
            m.arrivals.resize(n);
            for (auto& a : m.arrivals) {
                a.seq = r.u64();
                a.t_ns = r.i64();
            }
            uint32_t k = r.u32();
            if (!r.ok) return truncated;
            if (k > max_ssim || size_t(k) * 16 > r.left)
                return "ARRIVALS SSIM count " + std::to_string(k) + " does not fit its payload (at most " + std::to_string(max_ssim) + ")";
            m.ssim.resize(k);
            for (auto& s : m.ssim) {
                s.seq = r.u64();
                s.ssim = r.f64();
                if (!(s.ssim >= -1 && s.ssim <= 1)) return "ARRIVALS SSIM value is not in -1..1";
            }
            if (!read_str(r, m.codec)) return truncated;
            m.payload_bytes = r.u64();
            if (!r.ok) return truncated;
            out = std::move(m);
            return {};
        }
        case Type::ref_ask: {
            RefAsk m;
            if (!read_str(r, m.host) || !read_str(r, m.user)) return truncated;
            m.seq = r.u64();
            if (!r.ok) return truncated;
            out = std::move(m);
            return {};
        }
        case Type::reference: {
            Reference m;
            if (!read_str(r, m.user)) return truncated;
            m.seq = r.u64();
            m.width = r.u16();
            m.height = r.u16();
            m.gray_width = r.u16();
            m.gray_height = r.u16();
            if (!r.ok) return truncated;
            if (m.gray_width == 0) {
                if (!read_str(r, m.reason)) return truncated;
            } else {
                const size_t bytes = size_t(m.gray_width) * m.gray_height;
                if (bytes > max_reference_bytes || bytes != r.left)
                    return "REFERENCE " + std::to_string(m.gray_width) + "x" + std::to_string(m.gray_height) +
                           " does not match its payload (at most " + std::to_string(max_reference_bytes) + " bytes)";
                m.gray.assign(r.p, r.p + bytes);
                r.p += bytes;
                r.left = 0;
            }
            out = std::move(m);
            return {};
        }
    }
    return "unknown message type " + std::to_string(unsigned(t));
}

}  // namespace

void encode(std::vector<uint8_t>& out, const JoinMessage& m) {
    Writer w(out, type_of(m));
    std::visit(Encoder{w}, m);
    w.finish();
}

std::vector<uint8_t> join_mac_input(const Join& j) {
    std::vector<uint8_t> out;
    Writer w(out, uint8_t(Type::join));
    join_fields(w, j);
    out.erase(out.begin(), out.begin() + wire::header_size);
    return out;
}

std::string decode_join_payload(Type type, const uint8_t* p, size_t n, JoinMessage& out) {
    Reader r{p, n};
    std::string why = decode_body(type, r, out);
    if (!why.empty()) return why;
    if (r.left != 0) return "trailing " + std::to_string(r.left) + " bytes in " + type_name(uint8_t(type)) + " payload";
    return {};
}

wire::DecodeStatus Decoder::fail(std::string why) {
    error_ = std::move(why);
    buf_.clear();
    buf_.shrink_to_fit();
    pos_ = 0;
    return wire::DecodeStatus::error;
}

void Decoder::feed(const uint8_t* data, size_t n) {
    if (failed() || n == 0) return;
    if (pos_ > 0 && pos_ >= buf_.size() / 2) {
        buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
        pos_ = 0;
    }
    buf_.insert(buf_.end(), data, data + n);
}

wire::DecodeStatus Decoder::next(Message& out) {
    if (failed()) return wire::DecodeStatus::error;
    const size_t avail = buf_.size() - pos_;
    const uint8_t* h = buf_.data() + pos_;
    // Each header byte is checked as soon as it arrives: garbage fails at its first wrong byte.
    if (avail >= 2) {
        unsigned m = unsigned(h[0]) | unsigned(h[1]) << 8;
        if (m != wire::magic) {
            char b[16];
            std::snprintf(b, sizeof b, "0x%04X", m);
            return fail(std::string("bad magic ") + b);
        }
    }
    if (avail >= 3 && h[2] != wire::version) return fail("unsupported version " + std::to_string(h[2]));
    const bool telemetry = avail >= 4 && h[3] >= uint8_t(wire::MessageType::hello) && h[3] <= uint8_t(wire::MessageType::bye);
    if (avail >= 4 && !telemetry && (h[3] < uint8_t(Type::challenge) || h[3] > last_type))
        return fail("unknown message type " + std::to_string(h[3]));
    if (avail < wire::header_size) return wire::DecodeStatus::need_more;
    const uint32_t len = uint32_t(h[4]) | uint32_t(h[5]) << 8 | uint32_t(h[6]) << 16 | uint32_t(h[7]) << 24;
    if (len > limit_)
        return fail(std::string(type_name(h[3])) + " payload " + std::to_string(len) + " bytes exceeds limit " +
                    std::to_string(limit_));
    if (avail < wire::header_size + len) return wire::DecodeStatus::need_more;
    std::string why;
    if (telemetry) {
        wire::Message m;
        why = wire::decode_payload(static_cast<wire::MessageType>(h[3]), {h + wire::header_size, len}, m);
        if (why.empty()) out = std::move(m);
    } else {
        JoinMessage m;
        why = decode_join_payload(static_cast<Type>(h[3]), h + wire::header_size, len, m);
        if (why.empty()) out = std::move(m);
    }
    if (!why.empty()) return fail(std::move(why));
    pos_ += wire::header_size + len;
    if (pos_ == buf_.size()) {
        buf_.clear();
        pos_ = 0;
    }
    return wire::DecodeStatus::ok;
}

}  // namespace seatmark::join
