#pragma once
// Writes RGBA8 pixels as a PNG (libpng). Throws std::runtime_error naming the path.
#include <cstdint>
#include <string>
#include <vector>

namespace seatmark::client {

void write_png(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba);

}  // namespace seatmark::client
