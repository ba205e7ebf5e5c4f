#pragma once
// The telemetry wire protocol between a session (`seatmark session --connect`)
// and its orchestrator (`seatmark run`), described completely in this header.
//
// Transport: one Unix domain stream socket per session; the session connects,
// the orchestrator listens. Data flows session -> orchestrator only; anything the
// orchestrator sends is ignored (reserved for a later version).
//
// Framing: every message is an 8-byte header followed by its payload. All
// integers are little-endian, f64 is IEEE 754 binary64 (its bits as a u64),
// `str` is a u32 byte length then that many bytes of UTF-8 (no terminator).
//
//   header   u16 magic 0x4D53 (the bytes "SM")   u8 version   u8 type   u32 payload length
//
// Versions: 2 added present times to FrameRecord; 3 added low1_min_fps (MangoHud's "1% Min
// FPS") to BYE. Both ends are built together; any other version is refused.
//
// A payload longer than max_payload (1 MiB) is a protocol error, reported from
// the header alone (nothing is allocated for it). Any decode error is final for
// that connection: the decoder keeps reporting it and the orchestrator drops the
// connection and records the reason.
//
// Messages (type: payload layout, in order):
//
//   1 HELLO      u32 session_id, u32 pid,
//                str profile, str device_name, str device_type, str vendor,
//                str driver_name, str driver_info, str driver_version, str api_version,
//                u8 software (0|1),
//                u32 device_index, u32 vendor_id, u32 device_id,
//                u32 width, u32 height, u32 msaa, u64 scene_triangles,
//                f64 duration_s, i64 t_ns
//                Sent once, first, after the session has chosen its device: the
//                device fields name the device it really got (device_type "synthetic"
//                and device_name "synthetic" for --synthetic-fps, which opens none).
//   2 FRAMES     u32 count, then count x FrameRecord (72 bytes each):
//                u64 seq, i64 t_begin_ns, i64 cpu_ns, i64 gpu_ns, i64 interval_ns,
//                i64 latency_ns, u32 stretch, u16 mode, u16 flags,
//                i64 begin_interval_ns, i64 t_present_ns
//                (common/frame_record.h). The payload is exactly 4 + 72 x count bytes.
//                Frames arrive in seq order; seq gaps are dropped frames. A frame numbered
//                at or below one already received (a duplicated or reordered block) is not
//                counted again: the orchestrator drops it and says so.
//   3 HEARTBEAT  i64 t_ns, u64 frames_emitted              (payload exactly 16 bytes)
//                Liveness of the session's RENDER LOOP, not of its sender thread:
//                the sender sends one every ~0.5 s only if the render loop made
//                progress since the previous one (submitted a frame, or is sleeping
//                through a think pause in small steps). A render loop that hangs, a
//                process stopped by SIGSTOP, or a frame that takes longer than the
//                period therefore sends none. Setup (scene, pipelines) marks progress
//                only between its steps, so an orchestrator should call a session
//                hung only after several missed periods (e.g. 10 s without a HEARTBEAT
//                or FRAMES). frames_emitted counts frames completed so far.
//   4 EVENT      i64 t_ns, u16 kind (EventKind), str text
//                Something that happened: a software renderer was chosen, the device
//                was lost, a warning. Unknown kinds are passed through (forward compatible).
//   5 BYE        u64 frames_sent (frames in all FRAMES messages of this connection),
//                i32 exit_code (common/exit_codes.h; what the process exits with),
//                f64 fps, f64 p50_ms, f64 p95_ms, f64 p99_ms, f64 low1_fps,
//                f64 stutter, f64 latency_p95_ms,
//                f64 low1_tw_fps, f64 cpu_p50_ms, f64 gpu_p50_ms,
//                f64 active_s, f64 wall_s, f64 cpu_s, f64 model_open_s,
//                f64 low1_min_fps (MangoHud's "1% Min FPS": the mean per-frame FPS of the slowest
//                1 % of frames, core/stats.h; low1_fps above is seatmark's 1000 / p99),
//                u64 frames, u64 dropped, str message
//                The session's FrameSummary (common/frame_summary.h; NaN where a figure has no
//                data, all 0 when the session failed before its summary) and, when
//                exit_code != 0, why. Sent last; the session then closes.
//
// Conversation: HELLO, then any number of FRAMES / HEARTBEAT / EVENT, then BYE.
// A connection that closes without BYE is a session that died (crash, kill, lost
// telemetry). A session that fails before it chose a device (bad profile) closes
// without HELLO; its exit code and stderr say why. Frames counted by BYE but not
// received are lost frames: only numbers the session skipped, since frames travel before BYE on
// the same stream, so a BYE count below the frames received or above their next number cannot
// be true.
//
// Stamps (t_ns, t_begin_ns, t_present_ns) are the sender's monotonic clock, 0 for none; counts
// (seq, frames_emitted, frames_sent, frames, dropped) are at most 2^53. The orchestrator checks
// both where a message arrives (core/peer_stamps.h): a stamp no clock reads, or one outside the
// connection's life once in the orchestrator's clock, and a count past 2^53, are protocol errors.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/frame_record.h"
#include "common/frame_summary.h"

namespace seatmark::wire {

inline constexpr uint16_t magic = 0x4D53;  // "SM" as little-endian bytes 0x53 0x4D
inline constexpr uint8_t version = 3;
inline constexpr size_t header_size = 8;
inline constexpr uint32_t max_payload = 1u << 20;  // 1 MiB
inline constexpr size_t frame_record_size = 72;
inline constexpr uint32_t max_frames_per_message = static_cast<uint32_t>((max_payload - 4) / frame_record_size);
// Encoders cut longer strings to this many bytes, so every message fits max_payload.
inline constexpr size_t max_string_bytes = 64 * 1024;
// How often a session sends its buffered frames and a HEARTBEAT (together, in one write). Once a
// second: with 256 sessions, 500 ms cost the orchestrator ~0.5 % of a core in receive and dispatch
// work alone (bench_orchestrator), and nothing needs fresher data (the live API answers once a
// second, the judge waits for a heartbeat a second past the window). Receivers rely on it: a
// heartbeat timeout must be several of these (core/plan.cpp).
inline constexpr uint32_t heartbeat_interval_ms = 1000;

enum class MessageType : uint8_t { hello = 1, frames = 2, heartbeat = 3, event = 4, bye = 5 };
std::string_view to_string(MessageType t);  // "HELLO", ...; "unknown" otherwise

enum class EventKind : uint16_t {
    info = 0,
    warning = 1,
    error = 2,              // the session is failing; BYE carries its exit code
    device_lost = 3,        // VK_ERROR_DEVICE_LOST
    software_fallback = 4,  // the chosen device is a CPU renderer
    model_open = 5,         // the first frame showing the scene completed; text: model open time in ms
};
std::string_view to_string(EventKind k);  // "info", ...; "unknown" for values not listed

struct Hello {
    uint32_t session_id = 0;
    uint32_t pid = 0;
    std::string profile;
    std::string device_name, device_type, vendor;
    std::string driver_name, driver_info, driver_version, api_version;
    bool software = false;
    uint32_t device_index = 0, vendor_id = 0, device_id = 0;
    uint32_t width = 0, height = 0, msaa = 0;
    uint64_t scene_triangles = 0;
    double duration_s = 0;  // planned session length
    int64_t t_ns = 0;       // common/clock.h when sent
    bool operator==(const Hello&) const = default;
};

struct Frames {
    std::vector<FrameRecord> frames;
    bool operator==(const Frames& o) const;  // field by field
};

struct Heartbeat {
    // Complete through: every frame that began before t_ns is among frames_emitted. The sender
    // stamps the begin time of its oldest frame still in flight, or the render loop's latest
    // progress when none is (not simply "now": a slow frame begun before a window's end and not
    // yet finished would otherwise be judged missing from it, which the report then counts).
    int64_t t_ns = 0;
    uint64_t frames_emitted = 0;
    bool operator==(const Heartbeat&) const = default;
};

struct Event {
    int64_t t_ns = 0;
    EventKind kind = EventKind::info;
    std::string text;
    bool operator==(const Event&) const = default;
};

struct Bye {
    uint64_t frames_sent = 0;
    int32_t exit_code = 0;
    double fps = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0, low1_fps = 0, stutter = 0, latency_p95_ms = 0;
    double low1_tw_fps = 0, cpu_p50_ms = 0, gpu_p50_ms = 0;
    double active_s = 0, wall_s = 0, cpu_s = 0;
    double model_open_s = 0;  // session start -> first frame showing its scene (DESIGN.md); 0: none shown
    double low1_min_fps = 0;  // MangoHud's "1% Min FPS" (stats::one_percent_min_fps_mangohud)
    uint64_t frames = 0, dropped = 0;
    std::string message;
    bool operator==(const Bye&) const = default;  // NaN figures compare unequal, as doubles do
};

// Copies a summary's figures into a BYE (frames_sent, exit_code, wall/cpu and message untouched).
void set_summary(Bye& bye, const stats::FrameSummary& s);

using Message = std::variant<Hello, Frames, Heartbeat, Event, Bye>;

// Encoders append one complete message (header and payload) to `out`.
void encode(std::vector<uint8_t>& out, const Hello& m);
void encode(std::vector<uint8_t>& out, const Frames& m);
void encode(std::vector<uint8_t>& out, const Heartbeat& m);
void encode(std::vector<uint8_t>& out, const Event& m);
void encode(std::vector<uint8_t>& out, const Bye& m);
void encode(std::vector<uint8_t>& out, const Message& m);
// One FRAMES message; throws std::length_error above max_frames_per_message.
void encode_frames(std::vector<uint8_t>& out, std::span<const FrameRecord> frames);

enum class DecodeStatus { ok, need_more, error };

// One connection's byte stream cut into messages by the 8-byte header, shared by the telemetry
// decoder below and the join decoder (common/join_protocol.h). Each header byte is checked as
// soon as it arrives, so garbage fails at its first wrong byte; a length is checked against
// `limit` before anything waits for it.
class Framer {
public:
    void feed(const uint8_t* data, size_t n);  // ignored once failed
    // ok: `type` and `payload` are the next message's, valid until consume() or feed().
    // `known` says which types this connection accepts; `name` names them in errors.
    DecodeStatus peek(bool (*known)(uint8_t), const char* (*name)(uint8_t), uint32_t limit, uint8_t& type,
                      std::span<const uint8_t>& payload);
    void consume();                      // drops the message peek() returned
    DecodeStatus fail(std::string why);  // the stream is broken for good
    const std::string& error() const { return error_; }
    bool failed() const { return !error_.empty(); }
    size_t buffered() const { return buf_.size() - pos_; }  // bytes fed but not yet decoded

private:
    std::vector<uint8_t> buf_;
    size_t pos_ = 0;
    size_t next_ = 0;  // end of the message peek() returned
    std::string error_;
};

// Streaming decoder for one connection: feed() what the socket gave, then call
// next() until it stops returning ok. Never trusts a length it has not checked:
// garbage gives an error (or need_more), never a crash or a large allocation.
class Decoder {
public:
    // Appends bytes; ignored once an error was reported.
    void feed(const uint8_t* data, size_t n) { framer_.feed(data, n); }
    void feed(std::span<const uint8_t> data) { feed(data.data(), data.size()); }

    // ok: `out` holds the next message. need_more: feed more bytes. error: the
    // connection is broken for good; error() says why, e.g. "bad magic 0x1234",
    // "unsupported version 9", "FRAMES payload 5000000 bytes exceeds limit 1048576",
    // "FRAMES count 3 does not match payload 100 bytes", "truncated string in HELLO".
    DecodeStatus next(Message& out);

    const std::string& error() const { return framer_.error(); }
    bool failed() const { return framer_.failed(); }
    size_t buffered() const { return framer_.buffered(); }

private:
    Framer framer_;
};

// Decodes one payload of the given type (no header); returns "" on success or the reason.
std::string decode_payload(MessageType type, std::span<const uint8_t> payload, Message& out);

}  // namespace seatmark::wire
