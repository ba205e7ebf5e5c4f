#pragma once
// The join protocol: sessions and host agents started elsewhere (a user's RDP logon, a VM,
// another machine) join a run over TCP (`seatmark run --accept`, plan `[run] sessions = "join"`).
// Described completely in this header.
//
// Framing: the telemetry framing of common/wire_protocol.h (8-byte header, magic "SM",
// version wire::version, little-endian). Join messages use types 16..25; once a session is activated the
// telemetry messages (HELLO, FRAMES, HEARTBEAT, EVENT, BYE, types 1..5) flow on the same
// connection exactly as on the local socket. Before the peer is authenticated the orchestrator
// accepts at most `max_handshake_payload` bytes per message.
//
// Conversation (O = orchestrator, P = peer: a session or an agent):
//   O -> P  CHALLENGE  u16 join_version, 32 bytes server nonce (fresh random per connection)
//   P -> O  JOIN       u8 role (1 session, 2 agent), 32 bytes client nonce,
//                      str host, str user, str os_session, u32 pid, str device, str tool_version,
//                      32 bytes mac
//           mac = HMAC-SHA256(token, "seatmark-join-1 peer" || server nonce || the JOIN payload
//                 up to the mac). The token itself never crosses; a JOIN recorded from another
//                 connection carries a mac over another server nonce and is refused (replay).
//   O -> P  WELCOME    32 bytes mac2, u32 id, str device, u8 allow_software, f64 heartbeat_timeout_s,
//                      f64 duration_s
//           mac2 = HMAC-SHA256(token, "seatmark-join-1 orchestrator" || client nonce || server
//                  nonce || id): the peer checks it, so only a holder of the token drives it.
//           id: the peer's number in join order; device, allow_software: the plan's run settings.
//   or O -> P REFUSED  str reason, then O closes.
//   O -> P  PING       u32 seq, i64 t_orch_ns       clock offset measurement (several at join,
//   P -> O  PONG       u32 seq, i64 t_orch_ns (echo), i64 t_peer_ns        then periodically)
//   O -> P  START      u32 session_id, str profile_name, str profile_text (TOML)
//                      a waiting session begins as that session with that profile: HELLO (naming
//                      session_id), FRAMES ... as over the local socket
//   O -> P  STOP       (empty)  a session ends (BYE, close); a waiting one exits without rendering
//   O -> A  WATCH      u32 count, count x (u32 session_id, u32 pid, u8 renderer (0 unknown, 1 GPU,
//                      2 software)): that host's running sessions, the whole list each time
//   A -> O  SAMPLES    i64 t_ns, u32 count, count x (i32 session_id (-1: the host), str source,
//                      str metric, f64 value)   what the orchestrator's own samplers record
//   A -> O  HOST_INFO  str cpu_model, u32 cpu_count, u64 mem_total_bytes, str os, str kernel
//                      the host's identity, sent once after WELCOME: its hosts row gets what the
//                      orchestrator writes for its own host (a joined host is otherwise a bare name)
//
//
// A launcher (role 3, `seatmark launch --join`) opens RDP logons on the run's behalf; each
// logon's desktop starts `seatmark session --join`, which joins as a session of its own. The
// orchestrator matches a logon to its session by (host, user).
//   O -> L  LOGON      u32 count: open this many more logons (the launcher picks unused users)
//   O -> L  LOGOFF     str user: the run stopped that logon's session; its desktop ends by itself
//                      and the launcher closes the connection (not a fault)
//   L -> O  LOGON_STATE str host, str user, str rdp_host, u8 state (1 connecting, 2 ended),
//                      i64 t_ns, str fault, str detail, str codec, u64 payload_bytes, u64 paints,
//                      u64 unreadable, f64 bytes_per_s
//           host: the name the logon's session joins under; fault: none | refused | tls |
//           logon | protocol | cut | logged-off | timeout (launch/rdp_connection.h)
//   L -> O  ARRIVALS   str host, str user, u32 n, n x (u64 seq, i64 t_ns), u32 m, m x (u64 seq,
//                      f64 ssim), str codec, u64 payload_bytes
//           rendered frames newly seen at the client (the watermark's number, unwrapped) and
//           sampled SSIM; at most max_arrivals / max_ssim per message. One with an empty user and
//           no entries is a keepalive (sent every 2 s), so an idle launcher is not taken for gone
//   L -> O  REF_ASK    str host, str user, u64 seq: the session's reference frame of that number
//   O -> L  REFERENCE  str user, u64 seq, u16 width, u16 height (the rendered frame), u16 gray_width,
//                      u16 gray_height, gray_width x gray_height bytes gray (at most max_reference_bytes);
//                      gray_width 0: none kept, a str reason in place of the pixels. The orchestrator
//                      asks the session (REF_ASK on its connection) and passes its REFERENCE on.
//
// Peers' times (HELLO, FRAMES, HEARTBEAT, EVENT, SAMPLES, LOGON_STATE, ARRIVALS) are their own monotonic clock; the
// orchestrator adds the connection's measured offset at ingest, and refuses a stamp that cannot be
// true (no clock reading, or outside the connection's life once converted) or a count past 2^53,
// as a protocol error (core/peer_stamps.h). A PONG's stamp must be a clock reading, and agree
// with the burst's other round trips and with the offset in use (core::disagreement): a PONG off
// the peer's clock is a protocol error too. Nothing a peer sends names a
// file or starts a process on the orchestrator's host.
// duration_s in WELCOME is a backstop: a session renders until STOP, at most that long.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "common/wire_protocol.h"

namespace seatmark::join {

inline constexpr uint16_t join_version = 1;
inline constexpr size_t nonce_size = 32;
inline constexpr size_t mac_size = 32;
inline constexpr uint32_t max_handshake_payload = 4096;
inline constexpr uint32_t max_watch = 4096;
inline constexpr uint32_t max_samples = 16384;
inline constexpr uint32_t max_arrivals = 8192;
inline constexpr uint32_t max_ssim = 1024;
inline constexpr uint32_t max_cpu_count = 65536;
inline constexpr uint32_t max_reference_bytes = 512u * 1024;  // 1024x512 gray: fits one message
using Nonce = std::array<uint8_t, nonce_size>;
using Mac = std::array<uint8_t, mac_size>;

enum class Type : uint8_t {
    challenge = 16, join = 17, welcome = 18, refused = 19, ping = 20, pong = 21,
    start = 22, stop = 23, watch = 24, samples = 25,
    logon = 26, logoff = 27, logon_state = 28, arrivals = 29, ref_ask = 30, reference = 31, host_info = 32,
};
inline constexpr uint8_t last_type = uint8_t(Type::host_info);
enum class Role : uint8_t { session = 1, agent = 2, launcher = 3 };
std::string_view to_string(Role r);  // "session", "agent", "launcher"

struct Challenge {
    uint16_t version = join_version;
    Nonce nonce{};
};
struct Join {
    Role role = Role::session;
    Nonce client_nonce{};
    std::string host, user, os_session;
    uint32_t pid = 0;
    std::string device, tool_version;
    Mac mac{};
};
struct Welcome {
    Mac mac{};
    uint32_t id = 0;
    std::string device;
    bool allow_software = true;
    double heartbeat_timeout_s = 10;
    double duration_s = 3600;
};
struct Refused { std::string reason; };
struct Ping { uint32_t seq = 0; int64_t t_orch_ns = 0; };
struct Pong { uint32_t seq = 0; int64_t t_orch_ns = 0, t_peer_ns = 0; };
struct Start {
    uint32_t session_id = 0;
    std::string profile_name, profile_text;
};
struct Stop {};
struct WatchEntry {
    uint32_t session_id = 0, pid = 0;
    uint8_t renderer = 0;  // 0 unknown, 1 GPU, 2 software (a CPU renderer: its CPU time is its GPU share)
};
struct Watch { std::vector<WatchEntry> sessions; };
struct Sample { int32_t session_id = -1; std::string source, metric; double value = 0; };
struct Samples { int64_t t_ns = 0; std::vector<Sample> rows; };
struct Logon { uint32_t count = 0; };
struct Logoff { std::string user; };
struct LogonState {
    enum State : uint8_t { connecting = 1, ended = 2 };
    std::string host, user, rdp_host;
    uint8_t state = connecting;
    int64_t t_ns = 0;
    std::string fault = "none", detail, codec = "none";
    uint64_t payload_bytes = 0, paints = 0, unreadable = 0;
    double bytes_per_s = 0;
};
struct ArrivalEntry { uint64_t seq = 0; int64_t t_ns = 0; };
struct SsimEntry { uint64_t seq = 0; double ssim = 0; };
struct Arrivals {
    std::string host, user;
    std::vector<ArrivalEntry> arrivals;
    std::vector<SsimEntry> ssim;
    std::string codec = "none";
    uint64_t payload_bytes = 0;
};
struct RefAsk { std::string host, user; uint64_t seq = 0; };
struct Reference {
    std::string user;
    uint64_t seq = 0;
    uint16_t width = 0, height = 0;            // the rendered frame's size
    uint16_t gray_width = 0, gray_height = 0;  // the downscaled gray copy's
    std::vector<uint8_t> gray;                 // gray_width x gray_height; gray_width 0: none, `reason` says why
    std::string reason;
};

struct HostInfo {
    std::string cpu_model;
    uint32_t cpu_count = 0;
    uint64_t mem_total_bytes = 0;
    std::string os, kernel;
};

// In type order: a message's index here is its type - Type::challenge.
using JoinMessage = std::variant<Challenge, Join, Welcome, Refused, Ping, Pong, Start, Stop, Watch, Samples, Logon, Logoff,
                                 LogonState, Arrivals, RefAsk, Reference, HostInfo>;
// Either kind may arrive on a joined connection.
using Message = std::variant<wire::Message, JoinMessage>;

void encode(std::vector<uint8_t>& out, const JoinMessage& m);
// The JOIN payload bytes the mac covers (everything before the mac field).
std::vector<uint8_t> join_mac_input(const Join& j);

// Streaming decoder for a joined connection: the telemetry types through wire::decode_payload,
// the join types here. `limit` bounds every payload (max_handshake_payload until authenticated).
class Decoder {
public:
    void feed(const uint8_t* data, size_t n) { framer_.feed(data, n); }
    wire::DecodeStatus next(Message& out);
    void set_limit(uint32_t limit) { limit_ = limit; }
    const std::string& error() const { return framer_.error(); }
    bool failed() const { return framer_.failed(); }

private:
    wire::Framer framer_;
    uint32_t limit_ = max_handshake_payload;
};

// Decodes one join payload (no header); "" on success or the reason.
std::string decode_join_payload(Type type, const uint8_t* p, size_t n, JoinMessage& out);
const char* type_name(uint8_t type);  // "CHALLENGE", ..., "HELLO", ...; "unknown"

}  // namespace seatmark::join
