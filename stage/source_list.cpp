#include "stage/source_list.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/errors.h"

namespace seatmark::stage {
namespace fs = std::filesystem;

namespace {

SourceFile describe(const std::string& path, const std::string& rel) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0)
        throw InputError("source " + path + ": " + std::strerror(errno));
    SourceFile f;
    f.path = path;
    f.rel = rel;
    f.size = static_cast<uint64_t>(st.st_size);
    f.mode = st.st_mode & 07777;
    f.mtime_s = st.st_mtim.tv_sec;
    f.mtime_ns = st.st_mtim.tv_nsec;
    f.dev = st.st_dev;
    f.ino = st.st_ino;
    return f;
}

void add(const std::string& path, std::vector<SourceFile>& out) {
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
                                        (fs::path(base) / fs::relative(it->path(), p)).string()));
        }
        if (ec) throw InputError("source " + path + ": " + ec.message());
        std::sort(tree.begin(), tree.end(), [](auto& a, auto& b) { return a.rel < b.rel; });
        out.insert(out.end(), tree.begin(), tree.end());
    } else {
        throw InputError("source " + path + ": not a regular file or directory");
    }
}

}  // namespace

std::vector<SourceFile> list_sources(const std::vector<std::string>& sources, const std::vector<std::string>& manifests) {
    std::vector<SourceFile> out;
    for (auto& s : sources) add(s, out);
    for (auto& m : manifests) {
        std::ifstream in(m);
        if (!in) throw InputError("manifest " + m + ": " + std::strerror(errno));
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
                add(p.string(), out);
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
        j.push_back({f.path, f.rel, f.size, f.mode, f.mtime_s, f.mtime_ns, f.dev, f.ino});
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
        out.push_back(f);
    }
    return out;
}

}  // namespace seatmark::stage
