#include "common/file_hash.h"

#include <xxhash.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/input_file.h"

namespace seatmark {

uint64_t file_xxh3(const std::string& path, const std::function<bool()>& stop) {
    std::unique_ptr<InputFile> f;
    try {
        f = std::make_unique<InputFile>(path);
    } catch (const FileError& e) {
        throw std::runtime_error("cannot open " + path + ": " + e.what());
    }
    std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> st(XXH3_createState(), &XXH3_freeState);
    XXH3_64bits_reset(st.get());
    std::vector<char> buf(4 << 20);
    for (;;) {
        if (stop && stop()) throw HashStopped(path + ": hashing stopped");
        size_t n = 0;
        try {
            n = f->read(buf.data(), buf.size());
        } catch (const FileError& e) {
            throw std::runtime_error("cannot read " + path + ": " + e.what());
        }
        if (n == 0) break;
        XXH3_64bits_update(st.get(), buf.data(), n);
    }
    return XXH3_64bits_digest(st.get());
}

std::string xxh3_hex(uint64_t h) {
    char s[17];
    std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
    return s;
}

std::optional<uint64_t> parse_xxh3_hex(const std::string& s) {
    if (s.size() != 16) return std::nullopt;
    uint64_t v = 0;
    for (char c : s) {
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return std::nullopt;
        v = v << 4 | static_cast<uint64_t>(d);
    }
    return v;
}

}  // namespace seatmark
