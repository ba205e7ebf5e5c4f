// PNG files where libpng is not there (the MinGW build): stb_image_write / stb_image, the same
// interface and the same messages as image/png.cpp.
#include "image/png.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "common/output_file.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace seatmark::image {

namespace {

void append(void* ctx, void* data, int size) {
    auto* out = static_cast<std::vector<unsigned char>*>(ctx);
    out->insert(out->end(), static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + size);
}

}  // namespace

void write_png(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba) {
    if (rgba.size() < size_t(width) * height * 4) throw std::runtime_error("write_png: too few pixels");
    std::vector<unsigned char> encoded;
    if (!stbi_write_png_to_func(append, &encoded, int(width), int(height), 4, rgba.data(), int(width * 4)))
        throw std::runtime_error("cannot write screenshot " + path + ": PNG encoder error");
    write_output_file(path, std::string_view(reinterpret_cast<const char*>(encoded.data()), encoded.size()), "screenshot");
}

Pixels read_png(const std::string& path) {
    int w = 0, h = 0, n = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, 4);
    if (!data) throw std::runtime_error("cannot read PNG " + path + ": " + stbi_failure_reason());
    Pixels p;
    p.width = uint32_t(w);
    p.height = uint32_t(h);
    p.rgba.assign(data, data + size_t(w) * size_t(h) * 4);
    stbi_image_free(data);
    return p;
}

}  // namespace seatmark::image
