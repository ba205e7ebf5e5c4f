#pragma once
// The endpoint watermark: a session paints its frame sequence number as a grid of large
// black/white blocks in the top-left corner of what it presents; a launcher that receives the
// remoted desktop decodes it and so knows which rendered frame arrived when (docs/design.md
// "Endpoint figures"). Blocks are big (16 px by default) and read by the mean of their inner
// half, so a lossy codec's ringing at block edges (RemoteFX's wavelets, JPEG-like blurring)
// does not flip a bit; a CRC-8 over the number rejects frames where it did (or where the
// grid is half-updated), so a wrong number is never reported as a right one.
#include <cstdint>
#include <optional>
#include <vector>

namespace seatmark::watermark {

inline constexpr int cols = 10;
inline constexpr int rows = 4;
inline constexpr int calibration_cells = 4;                  // white, black, black, white
inline constexpr int seq_bits = 28;                          // the number, modulo 2^28
inline constexpr int crc_bits = 8;
static_assert(calibration_cells + seq_bits + crc_bits == cols * rows);
inline constexpr uint32_t seq_modulus = 1u << seq_bits;

struct Layout {
    int x0 = 0, y0 = 0;  // top-left of the grid in the frame, pixels
    int cell = 16;       // block edge, pixels
    int width() const { return cols * cell; }
    int height() const { return rows * cell; }
};

struct Block {
    int x, y, w, h;
    bool white;
};

uint8_t crc8(uint32_t seq);  // CRC-8 (polynomial 0x07) over the number's 4 little-endian bytes

// The blocks that paint `seq` (taken modulo 2^28): every cell of the grid, white or black.
std::vector<Block> blocks(uint64_t seq, const Layout& layout = {});

// A frame in memory: 32-bit pixels, blue at byte 0, green 1, red 2 (BGRA/BGRX, FreeRDP's
// PIXEL_FORMAT_BGRA32 and Vulkan's B8G8R8A8); stride in bytes.
struct FrameView {
    const uint8_t* pixels;
    int width, height, stride;
};

struct Decoded {
    uint32_t seq;        // modulo 2^28
    double contrast;     // white minus black calibration luma, 0..255
};

// The number painted at `layout`, or nullopt when the grid is not there, not readable
// (calibration contrast under 64 of 255) or its CRC does not match.
std::optional<Decoded> decode(const FrameView& frame, const Layout& layout = {});

// Finds the grid anywhere in the frame (a window manager places the session's window where it
// likes): scans rows for the calibration cells' white-black-black-white runs of about `cell`
// pixels, then confirms by decoding. nullopt when no readable grid is found.
std::optional<Layout> locate(const FrameView& frame, int cell = 16);

// The full sequence number nearest to `last` whose low 28 bits are `low` (sessions count
// from 0 and a run never reaches 2^27 frames between two arrivals).
uint64_t unwrap(uint32_t low, uint64_t last);

}  // namespace seatmark::watermark
