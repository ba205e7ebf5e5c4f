// The telemetry wire protocol (common/wire_protocol.h): round trips, streaming,
// every error it names, and garbage that must never crash the decoder.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/wire_protocol.h"

using namespace seatmark;
using namespace seatmark::wire;

namespace {

Hello sample_hello() {
    Hello h;
    h.session_id = 7;
    h.pid = 4242;
    h.profile = "designer-medium";
    h.device_name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    h.device_type = "cpu";
    h.vendor = "Mesa";
    h.driver_name = "llvmpipe";
    h.driver_info = "Mesa 22.3.6 (LLVM 15.0.6)";
    h.driver_version = "0.0.1";
    h.api_version = "1.3.230";
    h.software = true;
    h.device_index = 2;
    h.vendor_id = 0x10005;
    h.device_id = 0;
    h.width = 1280;
    h.height = 720;
    h.msaa = 4;
    h.scene_triangles = 300000;
    h.duration_s = 30.5;
    h.t_ns = 123456789012345;
    return h;
}

FrameRecord sample_frame(uint64_t seq) {
    FrameRecord r;
    r.seq = seq;
    r.t_begin_ns = 1'000'000'000'000 + int64_t(seq) * 16'666'667;
    r.cpu_ns = 250'000 + int64_t(seq);
    r.gpu_ns = seq % 3 == 0 ? -1 : 4'000'000;
    r.interval_ns = seq == 0 ? -1 : 16'666'667;
    r.latency_ns = seq % 2 ? -1 : 21'000'000;
    r.stretch = uint32_t(seq / 10);
    r.mode = uint16_t(seq % 6);
    r.flags = uint16_t(seq % 8);
    r.begin_interval_ns = seq == 0 ? -1 : 16'666'000 + int64_t(seq);
    r.t_present_ns = r.t_begin_ns + 5'000'000 + int64_t(seq);
    return r;
}

Bye sample_bye() {
    Bye b;
    b.frames_sent = 1800;
    b.exit_code = 4;
    b.fps = 59.9;
    b.p50_ms = 16.7;
    b.p95_ms = 18.2;
    b.p99_ms = 25.0;
    b.low1_fps = 40.0;
    b.stutter = 0.01;
    b.latency_p95_ms = 33.3;
    b.low1_tw_fps = 38.5;
    b.low1_min_fps = 36.25;
    b.cpu_p50_ms = 0.3;
    b.gpu_p50_ms = 4.1;
    b.active_s = 28.0;
    b.wall_s = 30.1;
    b.cpu_s = 12.5;
    b.frames = 1800;
    b.dropped = 2;
    b.message = "vkQueueSubmit failed: VK_ERROR_DEVICE_LOST";
    return b;
}

std::vector<Message> sample_messages() {
    Frames f;
    for (uint64_t i = 0; i < 37; ++i) f.frames.push_back(sample_frame(i));
    return {sample_hello(),
            f,
            Frames{},
            Heartbeat{987654321, 512},
            Event{555, EventKind::software_fallback, "llvmpipe is a software renderer"},
            Event{556, EventKind::info, ""},
            sample_bye()};
}

std::vector<uint8_t> bytes_of(const Message& m) {
    std::vector<uint8_t> out;
    encode(out, m);
    return out;
}

// One message's bytes with its payload replaced (header length fixed up).
std::vector<uint8_t> with_payload(MessageType type, const std::vector<uint8_t>& payload) {
    std::vector<uint8_t> out = {0x53, 0x4D, version, static_cast<uint8_t>(type)};
    uint32_t n = static_cast<uint32_t>(payload.size());
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(n >> (8 * i)));
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

std::vector<uint8_t> payload_of(const std::vector<uint8_t>& msg) {
    return {msg.begin() + header_size, msg.end()};
}

// Decodes everything; returns the final status and collects messages.
DecodeStatus decode_all(Decoder& d, std::vector<Message>& got) {
    for (;;) {
        Message m;
        DecodeStatus s = d.next(m);
        if (s != DecodeStatus::ok) return s;
        got.push_back(std::move(m));
    }
}

std::string error_for(const std::vector<uint8_t>& bytes) {
    Decoder d;
    d.feed(bytes.data(), bytes.size());
    std::vector<Message> got;
    DecodeStatus s = decode_all(d, got);
    REQUIRE(s == DecodeStatus::error);
    return d.error();
}

}  // namespace

TEST_CASE("wire: the header is magic \"SM\", version 3, type, little-endian payload length") {
    auto b = bytes_of(Heartbeat{0x0102030405060708, 9});
    REQUIRE(b.size() == header_size + 16);
    CHECK(b[0] == 'S');
    CHECK(b[1] == 'M');
    CHECK(b[2] == 3);  // 3: BYE carries MangoHud's 1% Min FPS
    CHECK(b[3] == static_cast<uint8_t>(MessageType::heartbeat));
    CHECK(b[4] == 16);
    CHECK(b[5] == 0);
    CHECK(b[6] == 0);
    CHECK(b[7] == 0);
    CHECK(b[8] == 0x08);  // t_ns, little-endian
    CHECK(b[15] == 0x01);

    Frames f;
    f.frames = {sample_frame(1), sample_frame(2), sample_frame(3)};
    auto fb = bytes_of(f);
    CHECK(fb.size() == header_size + 4 + 3 * frame_record_size);
    CHECK(frame_record_size == 72);
}

TEST_CASE("wire: every message round-trips, alone and all in one feed") {
    auto msgs = sample_messages();
    std::vector<uint8_t> all;
    for (const auto& m : msgs) {
        auto b = bytes_of(m);
        all.insert(all.end(), b.begin(), b.end());
        Decoder d;
        d.feed(b.data(), b.size());
        Message got;
        REQUIRE(d.next(got) == DecodeStatus::ok);
        CHECK(got.index() == m.index());
        CHECK(got == m);
        CHECK(d.next(got) == DecodeStatus::need_more);
        CHECK(d.buffered() == 0);
    }
    Decoder d;
    d.feed(all.data(), all.size());
    std::vector<Message> got;
    CHECK(decode_all(d, got) == DecodeStatus::need_more);
    REQUIRE(got.size() == msgs.size());
    for (size_t i = 0; i < msgs.size(); ++i) CHECK(got[i] == msgs[i]);
}

TEST_CASE("wire: two messages in one feed, then the rest byte by byte") {
    auto msgs = sample_messages();
    std::vector<uint8_t> all;
    for (const auto& m : msgs) {
        auto b = bytes_of(m);
        all.insert(all.end(), b.begin(), b.end());
    }
    Decoder d;
    std::vector<Message> got;
    size_t two = bytes_of(msgs[0]).size() + bytes_of(msgs[1]).size();
    d.feed(all.data(), two);
    CHECK(decode_all(d, got) == DecodeStatus::need_more);
    CHECK(got.size() == 2);
    for (size_t i = two; i < all.size(); ++i) {
        d.feed(&all[i], 1);
        CHECK(decode_all(d, got) == DecodeStatus::need_more);
    }
    REQUIRE(got.size() == msgs.size());
    for (size_t i = 0; i < msgs.size(); ++i) CHECK(got[i] == msgs[i]);
}

TEST_CASE("wire: NaN figures and extreme values survive the trip bit for bit") {
    Bye b;
    b.latency_p95_ms = std::numeric_limits<double>::quiet_NaN();
    b.gpu_p50_ms = -std::numeric_limits<double>::infinity();
    b.exit_code = -1;
    b.frames_sent = std::numeric_limits<uint64_t>::max();
    Decoder d;
    auto bytes = bytes_of(b);
    d.feed(bytes);
    Message m;
    REQUIRE(d.next(m) == DecodeStatus::ok);
    const Bye& got = std::get<Bye>(m);
    CHECK(std::isnan(got.latency_p95_ms));
    CHECK(got.gpu_p50_ms == -std::numeric_limits<double>::infinity());
    CHECK(got.exit_code == -1);
    CHECK(got.frames_sent == std::numeric_limits<uint64_t>::max());

    FrameRecord r;
    r.seq = ~0ull;
    r.t_begin_ns = std::numeric_limits<int64_t>::min();
    r.stretch = ~0u;
    r.mode = 0xFFFF;
    r.flags = 0xFFFF;
    Frames f{{r}};
    Decoder d2;
    auto fb = bytes_of(f);
    d2.feed(fb);
    REQUIRE(d2.next(m) == DecodeStatus::ok);
    CHECK(m == Message{f});
}

TEST_CASE("wire: encoders cut long strings and refuse FRAMES beyond the payload limit") {
    Event e{1, EventKind::warning, std::string(max_string_bytes + 1000, 'x')};
    auto b = bytes_of(e);
    Decoder d;
    d.feed(b);
    Message m;
    REQUIRE(d.next(m) == DecodeStatus::ok);
    CHECK(std::get<Event>(m).text.size() == max_string_bytes);

    std::vector<FrameRecord> many(max_frames_per_message + 1);
    std::vector<uint8_t> out;
    CHECK_THROWS_AS(encode_frames(out, many), std::length_error);
    CHECK(out.empty());
    many.pop_back();
    encode_frames(out, many);
    CHECK(out.size() <= header_size + max_payload);
    Decoder d2;
    d2.feed(out);
    REQUIRE(d2.next(m) == DecodeStatus::ok);
    CHECK(std::get<Frames>(m).frames.size() == max_frames_per_message);
}

TEST_CASE("wire: unknown event kinds pass through") {
    Event e{5, static_cast<EventKind>(999), "from a newer session"};
    auto b = bytes_of(e);
    Decoder d;
    d.feed(b);
    Message m;
    REQUIRE(d.next(m) == DecodeStatus::ok);
    CHECK(static_cast<int>(std::get<Event>(m).kind) == 999);
    CHECK(to_string(std::get<Event>(m).kind) == "unknown");
    CHECK(to_string(EventKind::device_lost) == "device_lost");
}

TEST_CASE("wire: every error names what is wrong, and is final") {
    SUBCASE("bad magic") {
        std::vector<uint8_t> b = {0x34, 0x12, 1, 1, 0, 0, 0, 0};
        CHECK(error_for(b) == "bad magic 0x1234");
    }
    SUBCASE("bad magic is seen before the header is complete") {
        Decoder d;
        uint8_t two[] = {'X', 'Y'};
        d.feed(two, 2);
        Message m;
        CHECK(d.next(m) == DecodeStatus::error);
        CHECK(d.error() == "bad magic 0x5958");
    }
    SUBCASE("unsupported version") {
        auto b = bytes_of(Heartbeat{});
        b[2] = 9;
        CHECK(error_for(b) == "unsupported version 9");
    }
    SUBCASE("unknown type") {
        auto b = bytes_of(Heartbeat{});
        b[3] = 77;
        CHECK(error_for(b) == "unknown message type 77");
        b[3] = 0;
        CHECK(error_for(b) == "unknown message type 0");
    }
    SUBCASE("payload over the limit is rejected from the header alone") {
        std::vector<uint8_t> b = {0x53, 0x4D, version, uint8_t(MessageType::frames)};
        uint32_t n = 5'000'000;
        for (int i = 0; i < 4; ++i) b.push_back(uint8_t(n >> (8 * i)));
        Decoder d;
        d.feed(b);  // no payload follows: an error at once, not need_more
        Message m;
        CHECK(d.next(m) == DecodeStatus::error);
        CHECK(d.error() == "FRAMES payload 5000000 bytes exceeds limit 1048576");
        CHECK(d.buffered() == 0);
        b[4] = b[5] = b[6] = b[7] = 0xFF;
        CHECK(error_for(b) == "FRAMES payload 4294967295 bytes exceeds limit 1048576");
    }
    SUBCASE("payload exactly at the limit is fine as far as the header goes") {
        std::vector<uint8_t> b = {0x53, 0x4D, version, uint8_t(MessageType::event)};
        for (int i = 0; i < 4; ++i) b.push_back(uint8_t(max_payload >> (8 * i)));
        Decoder d;
        d.feed(b);
        Message m;
        CHECK(d.next(m) == DecodeStatus::need_more);
    }
    SUBCASE("FRAMES count does not match the payload") {
        std::vector<uint8_t> p(100, 0);
        p[0] = 3;
        CHECK(error_for(with_payload(MessageType::frames, p)) == "FRAMES count 3 does not match payload 100 bytes");
        std::vector<uint8_t> huge = {0xFF, 0xFF, 0xFF, 0xFF};
        CHECK(error_for(with_payload(MessageType::frames, huge)) ==
              "FRAMES count 4294967295 does not match payload 4 bytes");
        CHECK(error_for(with_payload(MessageType::frames, {1, 0})) == "truncated FRAMES payload");
    }
    SUBCASE("truncated string in HELLO") {
        auto p = payload_of(bytes_of(sample_hello()));
        // profile's length prefix (after session_id, pid) claims more than is there
        p[8] = 0xFF;
        p[9] = 0xFF;
        p[10] = 0xFF;
        p[11] = 0x7F;
        CHECK(error_for(with_payload(MessageType::hello, p)) == "truncated string in HELLO");
        auto q = payload_of(bytes_of(sample_hello()));
        q.resize(8 + 4 + 2);  // inside the first string
        CHECK(error_for(with_payload(MessageType::hello, q)) == "truncated string in HELLO");
    }
    SUBCASE("truncated fixed fields, trailing bytes, bad flags") {
        auto p = payload_of(bytes_of(sample_hello()));
        auto shorter = p;
        shorter.pop_back();
        CHECK(error_for(with_payload(MessageType::hello, shorter)) == "truncated HELLO payload");
        auto longer = p;
        longer.push_back(0);
        longer.push_back(0);
        CHECK(error_for(with_payload(MessageType::hello, longer)) == "trailing 2 bytes in HELLO payload");
        CHECK(error_for(with_payload(MessageType::hello, {1, 2, 3})) == "truncated HELLO payload");
        // the software byte follows the eight strings
        size_t at = 8;
        for (int i = 0; i < 8; ++i) {
            uint32_t n = p[at] | p[at + 1] << 8 | p[at + 2] << 16 | uint32_t(p[at + 3]) << 24;
            at += 4 + n;
        }
        p[at] = 7;
        CHECK(error_for(with_payload(MessageType::hello, p)) == "HELLO software flag 7 is not 0 or 1");

        CHECK(error_for(with_payload(MessageType::heartbeat, std::vector<uint8_t>(17))) ==
              "HEARTBEAT payload 17 bytes, expected 16");
        CHECK(error_for(with_payload(MessageType::heartbeat, {})) == "HEARTBEAT payload 0 bytes, expected 16");
        CHECK(error_for(with_payload(MessageType::event, std::vector<uint8_t>(9))) == "truncated EVENT payload");
        auto ev = payload_of(bytes_of(Event{1, EventKind::info, "hello"}));
        ev.pop_back();
        CHECK(error_for(with_payload(MessageType::event, ev)) == "truncated string in EVENT");
        auto bye = payload_of(bytes_of(sample_bye()));
        CHECK(error_for(with_payload(MessageType::bye, {bye.begin(), bye.begin() + 40})) == "truncated BYE payload");
        bye.push_back(1);
        CHECK(error_for(with_payload(MessageType::bye, bye)) == "trailing 1 bytes in BYE payload");
    }
    SUBCASE("an error is final: good bytes after it are not decoded") {
        Decoder d;
        std::vector<uint8_t> bad = {0, 0, 0, 0, 0, 0, 0, 0};
        d.feed(bad);
        Message m;
        CHECK(d.next(m) == DecodeStatus::error);
        auto good = bytes_of(Heartbeat{1, 2});
        d.feed(good);
        CHECK(d.next(m) == DecodeStatus::error);
        CHECK(d.error() == "bad magic 0x0000");
        CHECK(d.buffered() == 0);
    }
    SUBCASE("a good message before a bad one is still delivered") {
        auto b = bytes_of(Heartbeat{1, 2});
        b.push_back(0xEE);
        b.push_back(0xEE);
        Decoder d;
        d.feed(b);
        Message m;
        CHECK(d.next(m) == DecodeStatus::ok);
        CHECK(d.next(m) == DecodeStatus::error);
        CHECK(d.error() == "bad magic 0xEEEE");
    }
}

TEST_CASE("wire: random garbage never crashes the decoder") {
    std::mt19937_64 rng(20261130);
    auto good = sample_messages();
    std::vector<std::vector<uint8_t>> seeds;
    for (const auto& m : good) seeds.push_back(bytes_of(m));
    int ok = 0, errors = 0, need_more = 0;
    for (int iter = 0; iter < 10000; ++iter) {
        std::vector<uint8_t> buf;
        switch (iter % 3) {
            case 0: {  // pure noise
                buf.resize(rng() % 300);
                for (auto& x : buf) x = uint8_t(rng());
                break;
            }
            case 1: {  // a plausible header, then noise
                buf = {0x53, 0x4D, version, uint8_t(1 + rng() % 5)};
                uint32_t n = uint32_t(rng() % 400);
                for (int i = 0; i < 4; ++i) buf.push_back(uint8_t(n >> (8 * i)));
                size_t extra = rng() % 420;
                for (size_t i = 0; i < extra; ++i) buf.push_back(uint8_t(rng()));
                break;
            }
            default: {  // a real message with a few bytes flipped, maybe cut short
                buf = seeds[rng() % seeds.size()];
                int flips = 1 + int(rng() % 4);
                for (int i = 0; i < flips; ++i) buf[rng() % buf.size()] ^= uint8_t(1 + rng() % 255);
                if (rng() % 2) buf.resize(rng() % (buf.size() + 1));
                break;
            }
        }
        Decoder d;
        // feed in random chunks
        size_t at = 0;
        DecodeStatus last = DecodeStatus::need_more;
        while (at < buf.size() && last != DecodeStatus::error) {
            size_t n = std::min(buf.size() - at, size_t(1 + rng() % 64));
            d.feed(buf.data() + at, n);
            at += n;
            Message m;
            while ((last = d.next(m)) == DecodeStatus::ok) ++ok;
        }
        CHECK((last == DecodeStatus::error || last == DecodeStatus::need_more));
        if (last == DecodeStatus::error) {
            ++errors;
            CHECK(!d.error().empty());
        } else {
            ++need_more;
        }
    }
    MESSAGE("garbage: " << ok << " messages decoded, " << errors << " errors, " << need_more << " need more");
    CHECK(errors > 1000);
}
