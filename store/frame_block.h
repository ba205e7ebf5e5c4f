#pragma once
// The packed form of a block of one session's frames (schema 4's frame_blocks.records): what the
// writer stores per session message and every reader decodes. docs/store.md "Frame blocks"
// describes the same bytes for a third-party decoder; change both together (and the version).
//   header, 8 bytes:  u8 format (1), u8 record size (72), u16 zero, u32 record count
//   each record, 72 bytes, little-endian:
//     u64 seq, i64 t_begin_ns, i64 cpu_ns, i64 gpu_ns, i64 interval_ns, i64 begin_interval_ns,
//     i64 t_present_ns, i64 latency_ns, u32 stretch, u16 mode, u16 flags
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/frame_record.h"

namespace seatmark::store {

inline constexpr uint8_t frame_block_format = 1;
inline constexpr size_t frame_block_header_bytes = 8;
inline constexpr size_t frame_record_bytes = 72;
// The writer splits a longer message into blocks of at most this many frames, so a t_begin range
// query (a step's window) decodes little outside its range.
inline constexpr size_t frame_block_max_frames = 4096;

// Appends the packed block of `frames` to `out` (cleared first).
void encode_frame_block(std::span<const FrameRecord> frames, std::vector<unsigned char>& out);

// Checks a stored block: its length, format and record size, and that its count is `expected`
// (frame_blocks.frames). Returns what is wrong and what to do ("" when it is sound).
std::string check_frame_block(const unsigned char* blob, size_t bytes, int64_t expected);

// Record `i` of a block check_frame_block() accepted.
FrameRecord decode_frame(const unsigned char* blob, size_t i);

}  // namespace seatmark::store
