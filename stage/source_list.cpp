#include "stage/source_list.h"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/input_file.h"
#include "common/errors.h"

namespace seatmark::stage {
namespace fs = std::filesystem;

namespace {

// procfs, sysfs and the like: sizes there are 0 or 4096 whatever a read returns.
const char* pseudo_fs(const std::string& path) {
    struct statfs fs{};
    if (::statfs(path.c_str(), &fs) != 0) return nullptr;
    switch (static_cast<unsigned long>(fs.f_type)) {
        case PROC_SUPER_MAGIC: return "proc";
        case SYSFS_MAGIC: return "sysfs";
        case DEBUGFS_MAGIC: return "debugfs";
        case CGROUP2_SUPER_MAGIC: return "cgroup2";
        case 0x73636673: return "securityfs";  // SECURITYFS_MAGIC
        case 0x74726163: return "tracefs";     // TRACEFS_MAGIC
        default: return nullptr;
    }
}

std::string kind_of(const fs::directory_entry& e) {
    std::error_code ec;
    auto l = e.symlink_status(ec);
    if (fs::is_symlink(l)) {
        auto t = e.status(ec);
        if (fs::is_directory(t)) return "symbolic link to a folder, not followed";
        if (!fs::exists(t)) return "dangling symbolic link";
        return "symbolic link to something that is not a regular file";
    }
    if (fs::is_fifo(l)) return "FIFO";
    if (fs::is_socket(l)) return "socket";
    if (fs::is_block_file(l) || fs::is_character_file(l)) return "device";
    return "not a regular file";
}

SourceFile describe(const std::string& path, const std::string& rel) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0)
        throw InputError("source " + path + ": " + std::strerror(errno));
    if (const char* kind = pseudo_fs(path))
        throw InputError("source " + path + ": on a " + kind +
                         " pseudo file system, whose files have no fixed size (a copy would be empty or cut); "
                         "copy it to a regular file first");
    SourceFile f;
    f.path = path;
    f.rel = rel;
    f.size = static_cast<uint64_t>(st.st_size);
    f.mode = st.st_mode & 07777;
    f.mtime_s = st.st_mtim.tv_sec;
    f.mtime_ns = st.st_mtim.tv_nsec;
    f.dev = st.st_dev;
    f.ino = st.st_ino;
    f.sparse = uint64_t(st.st_blocks) * 512 < f.size;
    return f;
}

void add(const std::string& path, std::vector<SourceFile>& out, std::vector<std::string>* skipped) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0)
        throw InputError("source " + path + ": " + std::strerror(errno));
    fs::path p = fs::path(path).lexically_normal();
    std::string base = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
    if (S_ISREG(st.st_mode)) {
        out.push_back(describe(path, base));
    } else if (S_ISDIR(st.st_mode)) {
        std::vector<SourceFile> tree;
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            if (it->is_regular_file(ec))
                tree.push_back(describe(it->path().string(),
                                        (fs::path(base) / it->path().lexically_relative(p)).string()));
            else if (!it->is_directory(ec) || it->is_symlink(ec)) {
                if (skipped) skipped->push_back(it->path().string() + ": " + kind_of(*it));
            }
        }
        if (ec) throw InputError("source " + path + ": " + ec.message());
        std::sort(tree.begin(), tree.end(), [](auto& a, auto& b) { return a.rel < b.rel; });
        out.insert(out.end(), tree.begin(), tree.end());
    } else {
        throw InputError("source " + path + ": not a regular file or directory");
    }
}

}  // namespace

std::vector<SourceFile> list_sources(const std::vector<std::string>& sources, const std::vector<std::string>& manifests,
                                     std::vector<std::string>* skipped) {
    std::vector<SourceFile> out;
    for (auto& s : sources) add(s, out, skipped);
    for (auto& m : manifests) {
        std::istringstream in(read_input_text(m, "manifest", max_list_bytes));
        std::string line;
        int n = 0;
        while (std::getline(in, line)) {
            ++n;
            auto b = line.find_first_not_of(" \t\r");
            if (b == std::string::npos || line[b] == '#') continue;
            auto e = line.find_last_not_of(" \t\r");
            fs::path p = line.substr(b, e - b + 1);
            if (p.is_relative()) p = fs::path(m).parent_path() / p;
            try {
                add(p.string(), out, skipped);
            } catch (const InputError& err) {
                throw InputError(where(m, n) + err.what());
            }
        }
    }
    std::vector<std::string> rels;
    for (auto& f : out) rels.push_back(f.rel);
    std::sort(rels.begin(), rels.end());
    if (auto d = std::adjacent_find(rels.begin(), rels.end()); d != rels.end())
        throw InputError("two sources would be staged to the same destination " + *d);
    return out;
}

std::string to_json(const std::vector<SourceFile>& files) {
    auto j = nlohmann::json::array();
    for (auto& f : files)
        j.push_back({f.path, f.rel, f.size, f.mode, f.mtime_s, f.mtime_ns, f.dev, f.ino, f.sparse});
    return j.dump();
}

std::vector<SourceFile> from_json(const std::string& text) {
    std::vector<SourceFile> out;
    for (auto& e : nlohmann::json::parse(text)) {
        SourceFile f;
        f.path = e[0];
        f.rel = e[1];
        f.size = e[2];
        f.mode = e[3];
        f.mtime_s = e[4];
        f.mtime_ns = e[5];
        f.dev = e[6];
        f.ino = e[7];
        f.sparse = e[8];
        out.push_back(f);
    }
    return out;
}

}  // namespace seatmark::stage
