#include "image/png.h"

#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/output_file.h"

namespace seatmark::image {

void write_png(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba) {
    if (rgba.size() < size_t(width) * height * 4) throw std::runtime_error("write_png: too few pixels");
    // Encoded in memory, then written whole by the one output writer (common/output_file.h).
    png_image img{};
    img.version = PNG_IMAGE_VERSION;
    img.width = width;
    img.height = height;
    img.format = PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    std::string encoded;
    if (png_image_write_to_memory(&img, nullptr, &size, 0, rgba.data(), 0, nullptr)) {
        encoded.resize(size);
        if (!png_image_write_to_memory(&img, encoded.data(), &size, 0, rgba.data(), 0, nullptr)) size = 0;
    }
    if (size == 0) throw std::runtime_error("cannot write screenshot " + path + ": libpng: " + img.message);
    encoded.resize(size);
    write_output_file(path, encoded, "screenshot");
}

}  // namespace seatmark::image

namespace seatmark::image {

Pixels read_png(const std::string& path) {
    png_image img{};
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path.c_str()))
        throw std::runtime_error("cannot read PNG " + path + ": " + img.message);
    img.format = PNG_FORMAT_RGBA;
    Pixels p;
    p.width = img.width;
    p.height = img.height;
    p.rgba.resize(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, nullptr, p.rgba.data(), 0, nullptr)) {
        png_image_free(&img);
        throw std::runtime_error("cannot decode PNG " + path + ": " + img.message);
    }
    return p;
}

}  // namespace seatmark::image
