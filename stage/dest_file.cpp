#include "stage/dest_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "stage/file_check.h"

namespace seatmark::stage {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

const std::string kTag = ".seatmark-stage.";

// Temporary files to remove if the process is told to stop (SIGTERM from mpirun when another rank
// failed, SIGINT from a terminal) while they are open. Fixed storage: the handler may only unlink.
constexpr int kSlots = 4;
std::atomic<bool> slot_used[kSlots];
char slot_path[kSlots][PATH_MAX];

extern "C" void remove_temps_and_die(int sig) {
    for (int i = 0; i < kSlots; ++i)
        if (slot_used[i].load(std::memory_order_acquire)) ::unlink(slot_path[i]);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

int register_temp(const std::string& path) {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa{};
        sa.sa_handler = remove_temps_and_die;
        sigemptyset(&sa.sa_mask);
        for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
            struct sigaction old{};
            // Leave a signal alone if someone (the user, a job step) set it to be ignored.
            if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
            ::sigaction(sig, &sa, nullptr);
        }
    });
    if (path.size() >= PATH_MAX) return -1;
    static std::mutex m;  // registration only; the handler reads a slot after its flag is set
    std::lock_guard lk(m);
    for (int i = 0; i < kSlots; ++i) {
        if (slot_used[i].load()) continue;
        std::memcpy(slot_path[i], path.c_str(), path.size() + 1);
        slot_used[i].store(true, std::memory_order_release);
        return i;
    }
    return -1;
}

void unregister_temp(int slot) {
    if (slot >= 0) slot_used[slot].store(false, std::memory_order_release);
}

std::string temp_name(const std::string& dest) {
    std::filesystem::path p(dest);
    return (p.parent_path() / ("." + p.filename().string() + kTag + std::to_string(getpid()) + ".tmp")).string();
}

bool write_all(int fd, const char* p, size_t n, uint64_t off) {
    while (n) {
        ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(off));
        if (w < 0 && errno == EINTR) continue;
        if (w == 0) errno = ENOSPC;
        if (w <= 0) return false;
        p += w;
        n -= static_cast<size_t>(w);
        off += static_cast<uint64_t>(w);
    }
    return true;
}

}  // namespace

DestFile::DestFile(std::string dest, uint64_t size, bool direct, bool sparse)
    : dest_(std::move(dest)), tmp_(temp_name(dest_)), size_(size), sparse_(sparse) {
    // O_DIRECT: the disk takes the data straight from our buffer, without a copy into the page
    // cache (a third of a writer's CPU) and without evicting what the host has cached; file
    // systems that refuse it (some FUSE ones, tmpfs before Linux 6.6) get ordinary buffered writes.
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW;
    // Registered before it exists: a signal between open() and registering would leave it behind.
    signal_slot_ = register_temp(tmp_);
    if (direct) fd_ = ::open(tmp_.c_str(), flags | O_DIRECT, 0600);
    direct_ = fd_ >= 0;
    if (fd_ < 0) fd_ = ::open(tmp_.c_str(), flags, 0600);
    if (fd_ < 0) {
        error_ = "cannot create " + tmp_ + ": " + std::strerror(errno);
        unregister_temp(signal_slot_);
        signal_slot_ = -1;
        return;
    }
    if (size_ && !sparse_) {
        // Reserving the space up front turns an out-of-space failure into one early error. Linux's
        // fallocate, not posix_fallocate: where the file system cannot reserve (ext2, NFSv3) glibc
        // would emulate it by writing every block once more; there, running out of space shows up
        // as a failed write instead, with the same outcome.
        if (::fallocate(fd_, 0, 0, static_cast<off_t>(size_)) != 0 && errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL)
            error_ = "cannot reserve " + std::to_string(size_) + " bytes for " + dest_ + ": " + std::strerror(errno);
    }
}

DestFile::~DestFile() {
    if (!committed_) abandon();
}

void DestFile::abandon() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    unregister_temp(signal_slot_);
    signal_slot_ = -1;
}

void DestFile::fail(const std::string& why) {
    if (error_.empty()) error_ = why;
}

void DestFile::write(char* buf, size_t n, uint64_t off) {
    if (!ok()) return;
    if (!sparse_) return write_span(buf, n, off);
    // A hole of the source stays a hole: the file is new, so what is not written reads as zeros
    // (commit() sets the size, also past a trailing hole). 64 KiB blocks keep O_DIRECT's alignment.
    constexpr size_t block = 64u << 10;
    auto zero = [&](size_t at, size_t len) { return buf[at] == 0 && std::memcmp(buf + at, buf + at + 1, len - 1) == 0; };
    for (size_t i = 0; i < n && ok();) {
        size_t len = std::min(block, n - i);
        if (zero(i, len)) {
            i += len;
            continue;
        }
        size_t j = i + len;
        while (j < n && !zero(j, std::min(block, n - j))) j += std::min(block, n - j);
        write_span(buf + i, j - i, off + i);
        i = j;
    }
}

void DestFile::write_span(char* buf, size_t n, uint64_t off) {
    bool done = false;
    if (direct_) {
        std::memset(buf + n, 0, round_up_direct(n) - n);
        done = write_all(fd_, buf, round_up_direct(n), off);
        if (!done && errno == EINVAL) {  // this file system wants another alignment: buffered from here on
            direct_ = false;
            ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_DIRECT);
        } else if (!done) {
            fail("cannot write " + tmp_ + ": " + std::strerror(errno));
            return;
        }
    }
    if (!direct_) {
        done = write_all(fd_, buf, n, off);
        if (!done) {
            fail("cannot write " + tmp_ + ": " + std::strerror(errno));
            return;
        }
        // Start writeback now so the disk works while the network does; the final fsync is then short.
        ::sync_file_range(fd_, static_cast<off_t>(off), static_cast<off_t>(n), SYNC_FILE_RANGE_WRITE);
    }
}

DestFile::Times DestFile::commit(uint32_t mode, int64_t mtime_s, int64_t mtime_ns, std::optional<uint64_t> expected_xxh3) {
    Times t;
    if (fd_ < 0) {
        fail("no temporary file for " + dest_);
        abandon();
        return t;
    }
    auto t0 = Clock::now();
    auto check = [&](bool good, const char* what) {
        if (!good) fail(std::string("cannot ") + what + " " + tmp_ + ": " + std::strerror(errno));
    };
    if (ok()) check(::ftruncate(fd_, static_cast<off_t>(size_)) == 0, "size");
    if (ok()) check(::fchmod(fd_, static_cast<mode_t>(mode)) == 0, "set the mode of");
    if (ok()) check(::fsync(fd_) == 0, "fsync");
    struct timespec times[2] = {{0, UTIME_OMIT}, {mtime_s, mtime_ns}};
    if (ok()) check(::futimens(fd_, times) == 0, "set the mtime of");
    int c = ::close(fd_);
    fd_ = -1;
    if (ok()) check(c == 0, "close");
    t.fsync_s = since(t0);
    if (ok() && expected_xxh3) {
        t0 = Clock::now();
        try {
            if (file_xxh3(tmp_) != *expected_xxh3) fail("post-verify: XXH3 of " + tmp_ + " differs from the source");
        } catch (const std::exception& e) {
            fail(std::string("post-verify: ") + e.what());
        }
        t.verify_s = since(t0);
    }
    if (ok() && ::rename(tmp_.c_str(), dest_.c_str()) != 0)
        fail("cannot rename " + tmp_ + " to " + dest_ + ": " + std::strerror(errno));
    if (ok()) {
        // The rename lives in the directory: fsync it too, or a power cut can undo the copy.
        auto dir = std::filesystem::path(dest_).parent_path();
        int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            ::fsync(dfd);
            ::close(dfd);
        }
    }
    if (ok()) {
        committed_ = true;
        unregister_temp(signal_slot_);
        signal_slot_ = -1;
    } else {
        abandon();
    }
    return t;
}

int remove_stale_temps(const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return 0;
    int removed = 0;
    while (dirent* e = ::readdir(d)) {
        // ".NAME.seatmark-stage.PID.tmp"
        const std::string name = e->d_name;
        const size_t tag = name.rfind(kTag);
        if (name[0] != '.' || tag == std::string::npos || name.size() < tag + kTag.size() + 5 ||
            name.compare(name.size() - 4, 4, ".tmp") != 0)
            continue;
        const std::string pid_text = name.substr(tag + kTag.size(), name.size() - 4 - tag - kTag.size());
        if (pid_text.empty() || pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
        const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
        // Alive on this host (another stage writing the same file right now) or our own: not stale.
        if (pid == getpid() || ::kill(pid, 0) == 0 || errno == EPERM) continue;
        if (::unlinkat(dirfd(d), name.c_str(), 0) == 0) ++removed;
    }
    ::closedir(d);
    return removed;
}

}  // namespace seatmark::stage
