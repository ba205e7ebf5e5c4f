#pragma once
// The reference a session writes for a sampled frame (`seatmark session --watermark
// --reference-dir DIR`) and a launcher reads to compute SSIM against what arrived: binary PGM
// (P5, 8-bit gray, downscaled) with the frame's number and full size in a comment line
// "# seatmark-reference seq=N width=W height=H".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seatmark::image {

struct ReferenceFrame {
    uint64_t seq = 0;
    int width = 0, height = 0;        // the rendered frame's size before downscaling
    int gray_width = 0, gray_height = 0;
    std::vector<uint8_t> gray;        // gray_width x gray_height, row-major
};

std::string reference_name(uint64_t seq);  // "ref-000000000042.pgm"
// Writes beside and renames, so a reader never sees half a file; throws std::runtime_error.
void write_reference(const std::string& path, const ReferenceFrame& r);
// nullopt for a missing, partial or malformed file (sizes bounded to 8192).
std::optional<ReferenceFrame> read_reference(const std::string& path);

}  // namespace seatmark::image
