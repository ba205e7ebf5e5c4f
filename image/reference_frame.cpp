#include "image/reference_frame.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace seatmark::image {

std::string reference_name(uint64_t seq) {
    char b[64];
    std::snprintf(b, sizeof b, "ref-%012llu.pgm", static_cast<unsigned long long>(seq));
    return b;
}

void write_reference(const std::string& path, const ReferenceFrame& r) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << "P5\n# seatmark-reference seq=" << r.seq << " width=" << r.width << " height=" << r.height << "\n"
          << r.gray_width << " " << r.gray_height << "\n255\n";
        f.write(reinterpret_cast<const char*>(r.gray.data()), static_cast<std::streamsize>(r.gray.size()));
        if (!f) throw std::runtime_error(tmp + ": cannot write the reference frame");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        throw std::runtime_error(path + ": cannot move the reference frame into place");
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
