#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/errors.h"
#include "common/exit_codes.h"

namespace seatmark {

namespace {

[[noreturn]] void cannot_write(const std::string& what, int err) {
    throw ExitError(exit_code::output_error,
                    what + ": cannot write: " + std::strerror(err) + "; give a path in a writable folder with free space");
}

}  // namespace

void write_output_file(const std::string& path, std::string_view text) {
    if (path.empty()) throw ExitError(exit_code::bad_input, "an output path is empty; give a file name");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) cannot_write(path, EISDIR);
    // A new or regular file is replaced whole by rename; anything else (a device such as
    // /dev/stdout, a FIFO, a link) is written in place: renaming over it would replace the node.
    struct stat lst {};
    const bool in_place = ::lstat(path.c_str(), &lst) == 0 && !S_ISREG(lst.st_mode);
    const auto slash = path.rfind('/');
    const std::string tmp = in_place ? path
                                     : path.substr(0, slash + 1) + "." + path.substr(slash + 1) + ".tmp-" +
                                           std::to_string(::getpid());
    int fd = ::open(tmp.c_str(), in_place ? (O_WRONLY | O_TRUNC | O_CLOEXEC) : (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC),
                    0644);
    if (fd < 0) cannot_write(path, errno);
    auto fail = [&](int err) {
        ::close(fd);
        if (!in_place) ::unlink(tmp.c_str());
        cannot_write(path, err);
    };
    for (size_t done = 0; done < text.size();) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(n < 0 ? errno : EIO);
        done += size_t(n);
    }
    if (::close(fd) != 0) {
        int err = errno;
        if (!in_place) ::unlink(tmp.c_str());
        cannot_write(path, err);
    }
    if (in_place) return;
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        cannot_write(path, err);
    }
}

void check_output_path(const std::string& path, const std::string& option) {
    if (path.empty()) throw InputError(option + " is empty; give a file name");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw InputError(option + " " + path + ": is a directory; give a file name");
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    if (::stat(dir.c_str(), &st) != 0)
        throw InputError(option + " " + path + ": folder " + dir + ": " + std::strerror(errno) + "; create it first");
    if (!S_ISDIR(st.st_mode)) throw InputError(option + " " + path + ": " + dir + " is not a folder");
    if (::access(dir.c_str(), W_OK) != 0)
        throw InputError(option + " " + path + ": folder " + dir + " is not writable (" + std::strerror(errno) + ")");
}

}  // namespace seatmark
