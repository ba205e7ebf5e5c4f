#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/input_file.h"

namespace seatmark {

namespace {
[[noreturn]] void fail(int err) { throw FileError(std::strerror(err)); }
}  // namespace

namespace {
FileId id_of(const struct stat& st) { return {uint64_t(st.st_dev), uint64_t(st.st_ino)}; }
}  // namespace

std::optional<FileId> file_id(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return id_of(st);
}

std::optional<FileId> stdout_file_id() {
    struct stat st {};
    if (::fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return id_of(st);
}

InputFile::InputFile(const std::string& path) {
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer, forever. It is refused below
    // and cleared for a regular file, where it changes nothing anyway.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) fail(errno);
    struct stat st {};
    std::string refused;
    if (::fstat(fd, &st) != 0) refused = std::strerror(errno);
    else if (S_ISDIR(st.st_mode)) refused = "it is a directory";
    else if (!S_ISREG(st.st_mode))
        refused = std::string("it is not a regular file but a ") +
                  (S_ISFIFO(st.st_mode) ? "FIFO" : S_ISSOCK(st.st_mode) ? "socket" : "device") +
                  ", which has no end or waits for a writer";
    if (!refused.empty()) {
        ::close(fd);  // a constructor that throws runs no destructor
        throw FileError(refused);
    }
    handle_ = fd;
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    size_ = uint64_t(st.st_size);
    id_ = id_of(st);
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    try {
        note_input(id_, path);
    } catch (...) {
        ::close(fd);
        handle_ = -1;
        throw;
    }
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
    // No MAP_POPULATE: that would make the whole file resident at once (see page_in).
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, int(file.handle_), 0);
    if (m == MAP_FAILED) fail(errno);
    ::madvise(m, size, MADV_SEQUENTIAL);
    data_ = static_cast<const uint8_t*>(m);
}

namespace {
// The whole pages that [p, p + n) touches, clipped to the mapping (which starts on a page).
bool page_range(const uint8_t* base, uint64_t size, const void* p, uint64_t n, uint8_t*& from, size_t& len) {
    static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const auto lo = uintptr_t(p), hi = std::min(uintptr_t(p) + n, uintptr_t(base) + size);
    if (!base || lo < uintptr_t(base) || lo >= hi) return false;
    const uintptr_t a = lo & ~(page - 1), b = (hi + page - 1) & ~(page - 1);
    from = reinterpret_cast<uint8_t*>(a);
    len = size_t(b - a);
    return true;
}
}  // namespace

void FileMapping::page_in(const void* p, uint64_t n) const {
    uint8_t* from = nullptr;
    size_t len = 0;
    if (!page_range(data_, size_, p, n, from, len)) return;
#ifdef MADV_POPULATE_READ
    if (::madvise(from, len, MADV_POPULATE_READ) == 0) return;
#endif
    ::madvise(from, len, MADV_WILLNEED);  // kernels before 5.14: read ahead, fault page by page
}

void FileMapping::page_out(const void* p, uint64_t n) const {
    uint8_t* from = nullptr;
    size_t len = 0;
    // Pages of a read-only private mapping are never written, so dropping them loses nothing.
    if (page_range(data_, size_, p, n, from, len)) ::madvise(from, len, MADV_DONTNEED);
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
