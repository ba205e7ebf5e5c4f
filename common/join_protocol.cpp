#include "common/join_protocol.h"


#include "common/wire_codec.h"

namespace seatmark::join {

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
        case 32: return "HOST_INFO";
    }
    return "unknown";
}

namespace {

using wire::codec::Is;
using wire::codec::ListRule;

uint8_t type_of(const JoinMessage& m) { return static_cast<uint8_t>(m.index() + uint8_t(Type::challenge)); }

// The layouts (common/wire_codec.h): each written once for encoding and decoding, in the
// order the header describes.
template <class Io, Is<Challenge> M>
void fields(Io& io, M& m) {
    io(m.version);
    io(m.nonce);
}

// What the JOIN mac covers: everything before the mac.
template <class Io, Is<Join> M>
void mac_covered(Io& io, M& j) {
    io(j.role);
    io.check(j.role >= Role::session && j.role <= Role::launcher, [&] {
        return "JOIN role " + std::to_string(unsigned(j.role)) + " is not 1 (session), 2 (agent) or 3 (launcher)";
    });
    io(j.client_nonce);
    for (auto* s : {&j.host, &j.user, &j.os_session}) io(*s);
    io(j.pid);
    for (auto* s : {&j.device, &j.tool_version}) io(*s);
}

template <class Io, Is<Join> M>
void fields(Io& io, M& j) {
    mac_covered(io, j);
    io(j.mac);
}

template <class Io, Is<Welcome> M>
void fields(Io& io, M& m) {
    io(m.mac);
    io(m.id);
    io(m.device);
    io.flag(m.allow_software, "WELCOME allow_software");
    io(m.heartbeat_timeout_s);
    io(m.duration_s);
}

template <class Io, Is<Refused> M>
void fields(Io& io, M& m) { io(m.reason); }

template <class Io, Is<Ping> M>
void fields(Io& io, M& m) {
    io(m.seq);
    io(m.t_orch_ns);
}

template <class Io, Is<Pong> M>
void fields(Io& io, M& m) {
    io(m.seq);
    io(m.t_orch_ns);
    io(m.t_peer_ns);
}

template <class Io, Is<Start> M>
void fields(Io& io, M& m) {
    io(m.session_id);
    io(m.profile_name);
    io(m.profile_text);
}

template <class Io, Is<Stop> M>
void fields(Io&, M&) {}

template <class Io, Is<Watch> M>
void fields(Io& io, M& m) {
    io.list(m.sessions, ListRule{"WATCH", max_watch, 9, true}, [](auto& o, auto& e) {
        o(e.session_id);
        o(e.pid);
        o(e.renderer);
        o.check(e.renderer <= 2, [&] { return "WATCH renderer " + std::to_string(e.renderer) + " is not 0, 1 or 2"; });
    });
}

template <class Io, Is<Samples> M>
void fields(Io& io, M& m) {
    io(m.t_ns);
    io.list(m.rows, ListRule{"SAMPLES", max_samples, 20}, [](auto& o, auto& s) {
        o(s.session_id);
        o(s.source);
        o(s.metric);
        o(s.value);
    });
}

template <class Io, Is<Logon> M>
void fields(Io& io, M& m) {
    io(m.count);
    io.check(m.count <= max_watch,
             [&] { return "LOGON count " + std::to_string(m.count) + " exceeds " + std::to_string(max_watch); });
}

template <class Io, Is<Logoff> M>
void fields(Io& io, M& m) { io(m.user); }

template <class Io, Is<LogonState> M>
void fields(Io& io, M& m) {
    for (auto* s : {&m.host, &m.user, &m.rdp_host}) io(*s);
    io(m.state);
    io.check(m.state == LogonState::connecting || m.state == LogonState::ended, [&] {
        return "LOGON_STATE state " + std::to_string(m.state) + " is not 1 (connecting) or 2 (ended)";
    });
    io(m.t_ns);
    for (auto* s : {&m.fault, &m.detail, &m.codec}) io(*s);
    io(m.payload_bytes);
    io(m.paints);
    io(m.unreadable);
    io(m.bytes_per_s);
}

template <class Io, Is<Arrivals> M>
void fields(Io& io, M& m) {
    io(m.host);
    io(m.user);
    io.list(m.arrivals, ListRule{"ARRIVALS", max_arrivals, 16}, [](auto& o, auto& a) {
        o(a.seq);
        o(a.t_ns);
    });
    io.list(m.ssim, ListRule{"ARRIVALS SSIM", max_ssim, 16}, [](auto& o, auto& e) {
        o(e.seq);
        o(e.ssim);
        o.check(e.ssim >= -1 && e.ssim <= 1, [] { return std::string("ARRIVALS SSIM value is not in -1..1"); });
    });
    io(m.codec);
    io(m.payload_bytes);
}

template <class Io, Is<RefAsk> M>
void fields(Io& io, M& m) {
    io(m.host);
    io(m.user);
    io(m.seq);
}

template <class Io, Is<Reference> M>
void fields(Io& io, M& m) {
    io(m.user);
    io(m.seq);
    io(m.width);
    io(m.height);
    io(m.gray_width);
    io(m.gray_height);
    if (m.gray_width == 0) return io(m.reason);  // none kept: why, in place of the pixels
    io.rest(m.gray, max_reference_bytes, size_t(m.gray_width) * m.gray_height, [&] {
        return "REFERENCE " + std::to_string(m.gray_width) + "x" + std::to_string(m.gray_height) +
               " does not match its payload (at most " + std::to_string(max_reference_bytes) + " bytes)";
    });
}

template <class Io, Is<HostInfo> M>
void fields(Io& io, M& m) {
    io(m.cpu_model);
    io(m.cpu_count);
    io.check(m.cpu_count <= max_cpu_count, [&] {
        return "HOST_INFO cpu_count " + std::to_string(m.cpu_count) + " exceeds " + std::to_string(max_cpu_count);
    });
    io(m.mem_total_bytes);
    io(m.os);
    io(m.kernel);
}

constexpr auto layout = [](auto& io, auto& m) { fields(io, m); };

bool known(uint8_t t) {
    return (t >= uint8_t(wire::MessageType::hello) && t <= uint8_t(wire::MessageType::bye)) ||
           (t >= uint8_t(Type::challenge) && t <= last_type);
}

}  // namespace

void encode(std::vector<uint8_t>& out, const JoinMessage& m) {
    std::visit([&out, &m](const auto& x) { wire::codec::put_message(out, type_of(m), x, layout); }, m);
}

std::vector<uint8_t> join_mac_input(const Join& j) {
    std::vector<uint8_t> out;
    wire::codec::put_message(out, uint8_t(Type::join), j, [](auto& io, auto& x) { mac_covered(io, x); });
    out.erase(out.begin(), out.begin() + wire::header_size);
    return out;
}

std::string decode_join_payload(Type type, const uint8_t* p, size_t n, JoinMessage& out) {
    const auto t = uint8_t(type);
    if (t < uint8_t(Type::challenge) || t > last_type) return "unknown message type " + std::to_string(unsigned(t));
    return wire::codec::get_alternative(t - uint8_t(Type::challenge), type_name(t), p, n, out, layout);
}

wire::DecodeStatus Decoder::next(Message& out) {
    uint8_t type = 0;
    std::span<const uint8_t> payload;
    wire::DecodeStatus st = framer_.peek(known, type_name, limit_, type, payload);
    if (st != wire::DecodeStatus::ok) return st;
    std::string why;
    if (type <= uint8_t(wire::MessageType::bye)) {
        wire::Message m;
        why = wire::decode_payload(static_cast<wire::MessageType>(type), payload, m);
        if (why.empty()) out = std::move(m);
    } else {
        JoinMessage m;
        why = decode_join_payload(static_cast<Type>(type), payload.data(), payload.size(), m);
        if (why.empty()) out = std::move(m);
    }
    if (!why.empty()) return framer_.fail(std::move(why));
    framer_.consume();
    return wire::DecodeStatus::ok;
}

}  // namespace seatmark::join
