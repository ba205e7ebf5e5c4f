#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "common/errors.h"
#include "common/exit_codes.h"

namespace seatmark {

namespace output_detail {

TargetKind target_kind(const std::string& path, std::string& resolved) {
    resolved = path;
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) != 0) return TargetKind::absent;
    if (S_ISLNK(lst.st_mode)) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) return TargetKind::dangling_link;
        if (S_ISDIR(st.st_mode)) return TargetKind::directory;
        if (!S_ISREG(st.st_mode)) return TargetKind::other;
        // The rename replaces the file the link names; renaming over the link would replace the link.
        if (char* real = ::realpath(path.c_str(), nullptr)) {
            resolved = real;
            std::free(real);
        }
        return TargetKind::regular;
    }
    if (S_ISDIR(lst.st_mode)) return TargetKind::directory;
    return S_ISREG(lst.st_mode) ? TargetKind::regular : TargetKind::other;
}

void check_folder_writable(const std::string& path, const std::string& option) {
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
        throw InputError(option + " " + path + ": folder " + dir + ": " + std::strerror(errno) + "; create it first");
    if (!S_ISDIR(st.st_mode)) throw InputError(option + " " + path + ": " + dir + " is not a folder");
    if (::access(dir.c_str(), W_OK) != 0)
        throw InputError(option + " " + path + ": folder " + dir + " is not writable (" + std::strerror(errno) + ")");
}

}  // namespace output_detail

OutputFile::OutputFile(const std::string& path, const std::string& what) : path_(path), what_(what) {
    check_output_target(path, what);
    std::string resolved;
    output_detail::target_kind(path, resolved);
    target_ = resolved;
    struct stat old {};
    const bool replacing = ::stat(target_.c_str(), &old) == 0;
    const auto slash = target_.rfind('/');
    const std::string stem = target_.substr(0, slash + 1) + "." + target_.substr(slash + 1) + ".tmp-" + std::to_string(::getpid());
    // O_EXCL: never into something already there (another writer's file, a planted link).
    for (int n = 0; handle_ < 0; ++n) {
        tmp_ = n ? stem + "-" + std::to_string(n) : stem;
        const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) handle_ = fd;
        else if (errno != EEXIST || n >= 100) {
            const int err = errno;
            tmp_.clear();
            fail(std::strerror(err));
        }
    }
    if (replacing) ::fchmod(int(handle_), old.st_mode & 07777);  // a replaced file keeps its mode
}

OutputFile::~OutputFile() {
    if (handle_ >= 0) ::close(int(handle_));
    if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::fail(const std::string& reason) {
    throw ExitError(exit_code::output_error, (what_.empty() ? path_ : what_ + " " + path_) + ": cannot write: " + reason +
                                                 "; give a path in a writable folder with free space");
}

void OutputFile::write(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    for (size_t done = 0; done < n;) {
        const ssize_t w = ::write(int(handle_), p + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) fail(std::strerror(w < 0 ? errno : EIO));
        done += size_t(w);
    }
}

void OutputFile::write_at(const void* data, size_t n, uint64_t offset) {
    const char* p = static_cast<const char*>(data);
    for (size_t done = 0; done < n;) {
        const ssize_t w = ::pwrite(int(handle_), p + done, n - done, off_t(offset + done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) fail(std::strerror(w < 0 ? errno : EIO));
        done += size_t(w);
    }
}

void OutputFile::commit() {
    // close() reports what the file system could not keep (a full disk on NFS, a quota).
    const int fd = int(handle_);
    handle_ = -1;
    if (::close(fd) != 0) fail(std::strerror(errno));
    if (::rename(tmp_.c_str(), target_.c_str()) != 0) fail(std::strerror(errno));
    committed_ = true;
}

}  // namespace seatmark
