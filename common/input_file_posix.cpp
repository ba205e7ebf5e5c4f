#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/input_file.h"

namespace seatmark {

namespace {
[[noreturn]] void fail(int err) { throw FileError(std::strerror(err)); }
}  // namespace

InputFile::InputFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(errno);
    handle_ = fd;
    struct stat st {};
    if (::fstat(fd, &st) == 0) {
        regular_ = S_ISREG(st.st_mode);
        size_ = uint64_t(st.st_size);
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
}

InputFile::~InputFile() {
    if (handle_ >= 0) ::close(int(handle_));
}

size_t InputFile::read(void* buf, size_t n) {
    for (;;) {
        const ssize_t got = ::read(int(handle_), buf, n);
        if (got >= 0) return size_t(got);
        if (errno != EINTR) fail(errno);
    }
}

bool InputFile::read_at(void* buf, size_t n, uint64_t offset) {
    return ::pread(int(handle_), buf, n, off_t(offset)) == ssize_t(n);
}

FileMapping::FileMapping(const InputFile& file, uint64_t size) : size_(size) {
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, int(file.handle_), 0);
    if (m == MAP_FAILED) fail(errno);
    ::madvise(m, size, MADV_SEQUENTIAL);
    data_ = static_cast<const uint8_t*>(m);
}

FileMapping::~FileMapping() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

FileLock::FileLock(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail(errno);
    handle_ = fd;
    while (::flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd);
        handle_ = -1;
        fail(err);
    }
}

FileLock::~FileLock() {
    if (handle_ >= 0) ::close(int(handle_));
}

bool file_readable(const std::string& path, std::string* reason) {
    if (::access(path.c_str(), R_OK) == 0) return true;
    if (reason) *reason = std::strerror(errno);
    return false;
}

}  // namespace seatmark
