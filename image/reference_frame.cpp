#include "image/reference_frame.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "common/output_file.h"

namespace seatmark::image {

std::string reference_name(uint64_t seq) {
    char b[64];
    std::snprintf(b, sizeof b, "ref-%012llu.pgm", static_cast<unsigned long long>(seq));
    return b;
}

void write_reference(const std::string& path, const ReferenceFrame& r) {
    std::string bytes = "P5\n# seatmark-reference seq=" + std::to_string(r.seq) + " width=" + std::to_string(r.width) +
                        " height=" + std::to_string(r.height) + "\n" + std::to_string(r.gray_width) + " " +
                        std::to_string(r.gray_height) + "\n255\n";
    bytes.append(reinterpret_cast<const char*>(r.gray.data()), r.gray.size());
    write_output_file(path, bytes, "reference frame");
}

std::optional<ReferenceFrame> read_reference(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return std::nullopt;
    std::string magic, comment;
    std::getline(f, magic);
    std::getline(f, comment);
    ReferenceFrame r;
    unsigned long long seq = 0;
    if (magic != "P5" ||
        std::sscanf(comment.c_str(), "# seatmark-reference seq=%llu width=%d height=%d", &seq, &r.width, &r.height) != 3)
        return std::nullopt;
    r.seq = seq;
    int maxval = 0;
    f >> r.gray_width >> r.gray_height >> maxval;
    f.get();
    if (!f || maxval != 255 || r.gray_width < 8 || r.gray_height < 8 || r.width > 8192 || r.height > 8192 ||
        r.width < r.gray_width || r.height < r.gray_height)
        return std::nullopt;
    r.gray.resize(static_cast<size_t>(r.gray_width) * static_cast<size_t>(r.gray_height));
    f.read(reinterpret_cast<char*>(r.gray.data()), static_cast<std::streamsize>(r.gray.size()));
    if (f.gcount() != static_cast<std::streamsize>(r.gray.size())) return std::nullopt;
    return r;
}

}  // namespace seatmark::image
