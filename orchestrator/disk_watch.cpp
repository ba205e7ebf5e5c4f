#include "orchestrator/disk_watch.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace seatmark::orchestrator {

namespace {
uint64_t size_of(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}
std::string mib(uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f MiB", double(b) / 1048576.0);
    return buf;
}
}  // namespace

DiskWatch::DiskWatch(std::string db_path, double planned_s, uint64_t margin_bytes)
    : db_path_(std::move(db_path)), planned_s_(planned_s), margin_(margin_bytes) {
    auto parent = std::filesystem::path(db_path_).parent_path();
    dir_ = parent.empty() ? "." : parent.string();
}

DiskWatch::~DiskWatch() { release(); }

void DiskWatch::reserve(uint64_t bytes) {
    release();
    std::string tmpl = dir_ + "/.seatmark-reserve-XXXXXX";
    int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);  // sessions must not inherit it
    if (fd < 0) return;  // no reserve: the run still stops cleanly, it may only not record why
    ::unlink(tmpl.c_str());
    if (::posix_fallocate(fd, 0, off_t(bytes)) != 0) {
        ::close(fd);
        return;
    }
    reserve_fd_ = fd;
}

void DiskWatch::release() {
    if (reserve_fd_ >= 0) ::close(reserve_fd_);
    reserve_fd_ = -1;
}

uint64_t DiskWatch::projected_need(uint64_t written, double elapsed_s, double planned_s) {
    if (elapsed_s <= 0) return 0;
    const double rest = std::max(0.0, planned_s - elapsed_s);
    // 1.5x: the write-ahead log holds a copy of pages until they are checkpointed.
    return uint64_t(double(written) / elapsed_s * rest * 1.5);
}

std::optional<std::string> DiskWatch::check(double elapsed_s) {
    struct statvfs fs {};
    if (::statvfs(dir_.c_str(), &fs) != 0) return std::nullopt;
    const uint64_t free_b = uint64_t(fs.f_bavail) * uint64_t(fs.f_frsize);
    const uint64_t written = size_of(db_path_) + size_of(db_path_ + "-wal");
    const uint64_t need = projected_need(written, elapsed_s, planned_s_);
    if (free_b < margin_ && warned_ < 2) {
        warned_ = 2;
        return "only " + mib(free_b) + " free on " + dir_ + " where the database grows (" + mib(written) +
               " so far): the run stops if the disk fills; free some space now";
    }
    if (free_b < need + margin_ && warned_ < 1) {
        warned_ = 1;
        return mib(free_b) + " free on " + dir_ + ", and the rest of the run needs about " + mib(need) +
               " at the rate the database grew so far (" + mib(written) + "): it may fill before the run ends";
    }
    return std::nullopt;
}

}  // namespace seatmark::orchestrator
