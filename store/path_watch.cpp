#include "store/path_watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

namespace seatmark::store {

namespace fs = std::filesystem;

namespace {
std::string folder_of(const std::string& path) {
    const fs::path p(path);
    return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}
}  // namespace

PathWatch::PathWatch(std::string path, int fd) : path_(std::move(path)) {
    struct stat st {};
    if (fd >= 0 && ::fstat(fd, &st) == 0) {
        dev_ = st.st_dev;
        ino_ = st.st_ino;
        armed_ = true;
    }
}

std::string PathWatch::check() const {
    if (!armed_) return "";
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0) {
        if (st.st_dev == dev_ && st.st_ino == ino_) return "";
        return path_ + " now names another file: the run's file was removed or replaced while the run was writing it";
    }
    const int err = errno;
    const std::string dir = folder_of(path_);
    struct stat dst {};
    if (::stat(dir.c_str(), &dst) != 0)
        return path_ + " is gone: its folder " + dir + " was removed while the run was writing it (" + std::strerror(err) +
               ")";
    return path_ + " is gone: it was removed while the run was writing it (" + std::strerror(err) + ")";
}

std::string reserve_rescue_file(const std::string& db_path, std::string& tried) {
    const fs::path p(db_path);
    const std::string stem = p.stem().string().empty() ? std::string("run") : p.stem().string();
    std::vector<std::string> places;
    const std::string own = folder_of(db_path);
    struct stat st {};
    if (::stat(own.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) places.push_back(own);
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    if (!ec) places.push_back(cwd.string());
    const char* tmp = std::getenv("TMPDIR");
    places.push_back(tmp && *tmp == '/' ? tmp : "/tmp");
    tried.clear();
    for (const std::string& dir : places) {
        int err = 0;
        for (int n = 1; n <= 20; ++n) {
            const std::string name = stem + ".rescued-" + std::to_string(::getpid()) + (n > 1 ? "-" + std::to_string(n) : "") + ".db";
            const std::string path = (fs::path(dir) / name).string();
            const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
            if (fd >= 0) {
                ::close(fd);
                return path;
            }
            err = errno;
            if (err != EEXIST) break;
        }
        tried += (tried.empty() ? "" : "; ") + dir + ": " + std::strerror(err);
    }
    return "";
}

}  // namespace seatmark::store
