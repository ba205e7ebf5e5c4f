#include "store/frame_block.h"

#include <bit>
#include <cstddef>
#include <cstring>

namespace seatmark::store {

namespace {

// On a little-endian host FrameRecord's memory is a format-1 record byte for byte (the fields in
// the record's order, no padding), so a block is one copy each way. The writer packs every
// session message (12k frames a second with 256 sessions): the field-by-field loop below was
// 5 % of the orchestrator's CPU. Any other host (or a changed struct) takes the loop.
constexpr bool record_is_memory_layout =
    std::endian::native == std::endian::little && sizeof(FrameRecord) == frame_record_bytes &&
    offsetof(FrameRecord, seq) == 0 && offsetof(FrameRecord, t_begin_ns) == 8 && offsetof(FrameRecord, cpu_ns) == 16 &&
    offsetof(FrameRecord, gpu_ns) == 24 && offsetof(FrameRecord, interval_ns) == 32 &&
    offsetof(FrameRecord, begin_interval_ns) == 40 && offsetof(FrameRecord, t_present_ns) == 48 &&
    offsetof(FrameRecord, latency_ns) == 56 && offsetof(FrameRecord, stretch) == 64 && offsetof(FrameRecord, mode) == 68 &&
    offsetof(FrameRecord, flags) == 70;

// Byte by byte, so the format is little-endian on any host (compilers fold this to a plain
// load/store on little-endian machines).
void put(unsigned char* p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint64_t get(const unsigned char* p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
}

int64_t get_i64(const unsigned char* p) { return static_cast<int64_t>(get(p, 8)); }

}  // namespace

void encode_frame_block(std::span<const FrameRecord> frames, std::vector<unsigned char>& out) {
    out.assign(frame_block_header_bytes + frames.size() * frame_record_bytes, 0);
    unsigned char* p = out.data();
    p[0] = frame_block_format;
    p[1] = static_cast<unsigned char>(frame_record_bytes);
    put(p + 4, frames.size(), 4);
    p += frame_block_header_bytes;
    if constexpr (record_is_memory_layout) {
        if (!frames.empty()) std::memcpy(p, frames.data(), frames.size() * frame_record_bytes);
        return;
    }
    for (const FrameRecord& f : frames) {
        put(p + 0, f.seq, 8);
        put(p + 8, static_cast<uint64_t>(f.t_begin_ns), 8);
        put(p + 16, static_cast<uint64_t>(f.cpu_ns), 8);
        put(p + 24, static_cast<uint64_t>(f.gpu_ns), 8);
        put(p + 32, static_cast<uint64_t>(f.interval_ns), 8);
        put(p + 40, static_cast<uint64_t>(f.begin_interval_ns), 8);
        put(p + 48, static_cast<uint64_t>(f.t_present_ns), 8);
        put(p + 56, static_cast<uint64_t>(f.latency_ns), 8);
        put(p + 64, f.stretch, 4);
        put(p + 68, f.mode, 2);
        put(p + 70, f.flags, 2);
        p += frame_record_bytes;
    }
}

std::string check_frame_block(const unsigned char* blob, size_t bytes, int64_t expected) {
    if (!blob || bytes < frame_block_header_bytes)
        return "records are " + std::to_string(bytes) + " bytes, shorter than the 8-byte block header: the file is damaged";
    if (blob[0] != frame_block_format)
        return "block format " + std::to_string(blob[0]) + ", this seatmark reads format " +
               std::to_string(frame_block_format) + " (read it with the seatmark that wrote it)";
    if (blob[1] != frame_record_bytes)
        return "records of " + std::to_string(blob[1]) + " bytes, format 1 has " + std::to_string(frame_record_bytes) +
               ": the file is damaged";
    const uint64_t count = get(blob + 4, 4);
    if (expected < 0 || count != static_cast<uint64_t>(expected))
        return "the block holds " + std::to_string(count) + " frames, its row says " + std::to_string(expected) +
               ": the file is damaged";
    if (bytes != frame_block_header_bytes + count * frame_record_bytes)
        return "records are " + std::to_string(bytes) + " bytes, " + std::to_string(count) + " frames need " +
               std::to_string(frame_block_header_bytes + count * frame_record_bytes) + ": the file is damaged";
    return {};
}

FrameRecord decode_frame(const unsigned char* blob, size_t i) {
    const unsigned char* p = blob + frame_block_header_bytes + i * frame_record_bytes;
    FrameRecord f;
    if constexpr (record_is_memory_layout) {
        std::memcpy(static_cast<void*>(&f), p, frame_record_bytes);
        return f;
    }
    f.seq = get(p, 8);
    f.t_begin_ns = get_i64(p + 8);
    f.cpu_ns = get_i64(p + 16);
    f.gpu_ns = get_i64(p + 24);
    f.interval_ns = get_i64(p + 32);
    f.begin_interval_ns = get_i64(p + 40);
    f.t_present_ns = get_i64(p + 48);
    f.latency_ns = get_i64(p + 56);
    f.stretch = static_cast<uint32_t>(get(p + 64, 4));
    f.mode = static_cast<uint16_t>(get(p + 68, 2));
    f.flags = static_cast<uint16_t>(get(p + 70, 2));
    return f;
}

}  // namespace seatmark::store
