#include "stage/file_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/errors.h"

namespace seatmark::stage {

DestState dest_state(const std::string& path, uint64_t size, uint64_t src_dev, uint64_t src_ino, bool same_host) {
    DestState d;
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return d;
    d.exists = true;
    d.same_size = static_cast<uint64_t>(st.st_size) == size;
    d.is_source = same_host && st.st_dev == src_dev && st.st_ino == src_ino;
    return d;
}

uint64_t free_bytes(const std::string& dir) {
    struct statvfs s{};
    if (::statvfs(dir.c_str(), &s) != 0)
        throw std::runtime_error("cannot check free space on " + dir + ": " + std::strerror(errno));
    return static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
}

uint64_t parse_bytes(const std::string& text) {
    size_t pos = 0;
    unsigned long long v = 0;
    try {
        v = std::stoull(text, &pos);
    } catch (const std::exception&) {
        throw InputError("bad size '" + text + "': expected a number with an optional K, M or G suffix");
    }
    std::string suf = text.substr(pos);
    uint64_t mul = 1;
    if (suf == "K" || suf == "k" || suf == "KiB") mul = 1ull << 10;
    else if (suf == "M" || suf == "m" || suf == "MiB") mul = 1ull << 20;
    else if (suf == "G" || suf == "g" || suf == "GiB") mul = 1ull << 30;
    else if (!suf.empty()) throw InputError("bad size '" + text + "': expected a number with an optional K, M or G suffix");
    return v * mul;
}

}  // namespace seatmark::stage
