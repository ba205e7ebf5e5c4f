// The inputs of this process and the one rule for reading one whole (common/input_file.h).
// The open, the file type and the identity are platform calls: common/input_file_posix.cpp,
// common/input_file_windows.cpp.
#include "common/input_file.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "common/errors.h"

namespace seatmark {

namespace {

struct Inputs {
    std::mutex mu;
    // By identity (volume, index): `seatmark stage` hashes thousands of files.
    std::map<std::pair<uint64_t, uint64_t>, std::string> noted;
    size_t prune_at = 64;
};

std::pair<uint64_t, uint64_t> key(const FileId& id) { return {id.volume, id.index}; }

Inputs& inputs() {
    static Inputs i;
    return i;
}

std::string size_text(uint64_t bytes) {
    char b[64];
    if (bytes >= (1ull << 30)) std::snprintf(b, sizeof b, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20)) std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / double(1ull << 20));
    else std::snprintf(b, sizeof b, "%.1f KiB", double(bytes) / 1024.0);
    return b;
}

std::unique_ptr<InputFile> open_input(const std::string& path, const std::string& what, uint64_t max_bytes) {
    std::unique_ptr<InputFile> f;
    try {
        f = std::make_unique<InputFile>(path);
    } catch (const FileError& e) {
        throw InputError(path + ": cannot read the " + what + ": " + e.what() + "; give the path of a " + what);
    }
    if (f->size() > max_bytes)
        throw InputError(path + ": cannot read the " + what + ": it is " + size_text(f->size()) + ", more than any " +
                         what + " (at most " + size_text(max_bytes) + "); is it the right file?");
    return f;
}

}  // namespace

void note_input(const FileId& id, const std::string& path) {
    // An output redirected onto an input would be written while the input is read: refused
    // before a byte of either.
    if (auto out = stdout_file_id(); out && *out == id)
        throw InputError("standard output is " + path + ", which this command reads; redirect the output to another file");
    Inputs& in = inputs();
    std::lock_guard<std::mutex> lock(in.mu);
    if (auto n = in.noted.find(key(id)); n != in.noted.end()) {
        // The same file again, or a new file with an old, removed one's number (inodes are
        // reused at once): the name kept is one that still names it.
        if (file_id(n->second) != id) n->second = path;
        return;
    }
    // A long-lived process (a monitor re-reading its database, a fuzzer) may open many files by
    // turns: the ones no longer there under their names are forgotten now and then.
    if (in.noted.size() >= in.prune_at) {
        std::erase_if(in.noted, [](const auto& n) {
            const auto id = file_id(n.second);
            return !id || key(*id) != n.first;
        });
        in.prune_at = std::max<size_t>(64, 2 * in.noted.size());
    }
    in.noted.emplace(key(id), path);
}

void note_input(const std::string& path) {
    if (auto id = file_id(path)) note_input(*id, path);
}

std::optional<std::string> input_named(const FileId& id) {
    Inputs& in = inputs();
    std::lock_guard<std::mutex> lock(in.mu);
    // An input removed since it was read may have left its number to a new file: the noted
    // path must still name the file.
    if (auto n = in.noted.find(key(id)); n != in.noted.end() && file_id(n->second) == id) return n->second;
    return std::nullopt;
}

std::string read_input_text(const std::string& path, const std::string& what, uint64_t max_bytes) {
    auto f = open_input(path, what, max_bytes);
    std::string text;
    text.resize(size_t(f->size()));
    size_t got = 0;
    try {
        // Up to one byte past the limit: a file that grows while read is still bounded.
        for (;;) {
            if (got == text.size()) {
                if (text.size() > max_bytes) break;
                text.resize(std::min<size_t>(size_t(max_bytes) + 1, text.size() + (64u << 10)));
            }
            const size_t n = f->read(text.data() + got, text.size() - got);
            if (n == 0) break;
            got += n;
        }
    } catch (const FileError& e) {
        throw InputError(path + ": cannot read the " + what + ": " + e.what());
    }
    if (got > max_bytes)
        throw InputError(path + ": cannot read the " + what + ": it grew past " + size_text(max_bytes) +
                         " while read; is it the right file?");
    text.resize(got);
    return text;
}

void check_input_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
    open_input(path, what, max_bytes);
}

}  // namespace seatmark
