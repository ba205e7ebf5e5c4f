#pragma once
// Local file checks used by the pre-check: whether a destination already holds a good copy, free
// space on a destination file system, sizes on the command line. XXH3 of a file: common/file_hash.h.
#include <cstdint>
#include <string>

#include "common/file_hash.h"

namespace seatmark::stage {

struct DestState {
    bool exists = false;
    bool same_size = false;
    bool is_source = false;  // same host, same device and inode as the source: never touched
};
DestState dest_state(const std::string& path, uint64_t size, uint64_t src_dev, uint64_t src_ino, bool same_host);

// Bytes available to an unprivileged writer on the file system holding dir; throws on error.
uint64_t free_bytes(const std::string& dir);

// "16M", "1G", "4096" -> bytes; throws InputError.
uint64_t parse_bytes(const std::string& text);

}  // namespace seatmark::stage
