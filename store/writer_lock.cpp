#include "store/writer_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/errors.h"

namespace seatmark::store {

FileHandle::~FileHandle() { close(); }

FileHandle::FileHandle(FileHandle&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}

FileHandle& FileHandle::operator=(FileHandle&& o) noexcept {
    if (this != &o) {
        close();
        fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
}

void FileHandle::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

namespace {
[[noreturn]] void exists_error(const std::string& path, const std::string& why) {
    throw InputError(path + " exists; choose another --db or remove it" + why);
}
}  // namespace

void refuse_existing_db(const std::string& path, const std::string& why) {
    struct stat st{};
    if (::lstat(path.c_str(), &st) == 0) exists_error(path, why);
}

FileHandle create_locked(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST) exists_error(path, {});
        throw InputError(path + ": cannot create: " + std::strerror(errno));
    }
    FileHandle h(fd);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0)
        throw InputError(path + ": cannot lock: " + std::strerror(errno));
    return h;
}

FileHandle open_for_probe(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
    return FileHandle(fd);
}

bool writer_alive(const FileHandle& probe) {
    if (probe.fd() < 0) return false;
    if (::flock(probe.fd(), LOCK_SH | LOCK_NB) != 0) return errno == EWOULDBLOCK;
    ::flock(probe.fd(), LOCK_UN);
    return false;
}

}  // namespace seatmark::store
