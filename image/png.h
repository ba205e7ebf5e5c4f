#pragma once
// Writes RGBA8 pixels as a PNG (libpng). Throws std::runtime_error naming the path.
#include <cstdint>
#include <string>
#include <vector>

namespace seatmark::image {

struct Pixels {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;
};

// Reads a PNG as RGBA8 (tests and tools look at what a session drew).
Pixels read_png(const std::string& path);

void write_png(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba);

}  // namespace seatmark::image
