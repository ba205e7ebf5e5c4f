#pragma once
// What to stage: files, directory trees (nested) and manifests (one path a line), listed on the
// reading rank only and broadcast as JSON. Throws InputError naming a missing or unreadable path.
#include <cstdint>
#include <string>
#include <vector>

namespace seatmark::stage {

struct SourceFile {
    std::string path;  // on the reading host
    std::string rel;   // destination path relative to --dest
    uint64_t size = 0;
    uint32_t mode = 0;
    int64_t mtime_s = 0, mtime_ns = 0;
    uint64_t dev = 0, ino = 0;
    bool sparse = false;  // fewer blocks allocated than its size: copies keep its holes
};

// Inside a tree, entries that are not regular files (a link to a folder, which is not followed, a
// dangling link, a FIFO, a socket, a device) are left out and named in `skipped`
// ("a/link: symbolic link to a folder, not followed"). A named source on a pseudo file system
// (/proc, /sys), whose files report size 0 whatever they hold, is an InputError.
std::vector<SourceFile> list_sources(const std::vector<std::string>& sources, const std::vector<std::string>& manifests,
                                     std::vector<std::string>* skipped = nullptr);

std::string to_json(const std::vector<SourceFile>& files);
std::vector<SourceFile> from_json(const std::string& text);

}  // namespace seatmark::stage
