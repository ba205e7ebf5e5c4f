#include "stage/transfer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "stage/file_check.h"

namespace seatmark::stage {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Buffers move between the MPI thread and the I/O thread through two queues.
struct Ring {
    std::mutex m;
    std::condition_variable cv;
    std::deque<int> to_io, to_mpi;  // slot numbers, in chunk order

    void push(std::deque<int>& q, int slot) {
        {
            std::lock_guard lk(m);
            q.push_back(slot);
        }
        cv.notify_all();
    }
    int pop_wait(std::deque<int>& q) {
        std::unique_lock lk(m);
        cv.wait(lk, [&] { return !q.empty(); });
        int s = q.front();
        q.pop_front();
        return s;
    }
    // Non-blocking pop for the MPI thread, which must keep testing its requests; -1 when empty.
    int try_pop(std::deque<int>& q, bool wait_briefly) {
        std::unique_lock lk(m);
        if (q.empty() && wait_briefly) cv.wait_for(lk, std::chrono::microseconds(50));
        if (q.empty()) return -1;
        int s = q.front();
        q.pop_front();
        return s;
    }
};

std::string temp_name(const std::string& dest) {
    std::filesystem::path p(dest);
    return (p.parent_path() / ("." + p.filename().string() + ".seatmark-stage." + std::to_string(getpid()) + ".tmp")).string();
}

bool write_all(int fd, const char* p, size_t n, uint64_t off) {
    while (n) {
        ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(off));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= static_cast<size_t>(w);
        off += static_cast<uint64_t>(w);
    }
    return true;
}

bool read_all(int fd, char* p, size_t n, uint64_t off) {
    while (n) {
        ssize_t r = ::pread(fd, p, n, static_cast<off_t>(off));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r == 0) errno = EIO;  // the source shrank while being read
            return false;
        }
        p += r;
        n -= static_cast<size_t>(r);
        off += static_cast<uint64_t>(r);
    }
    return true;
}

}  // namespace

TransferResult transfer_file(MPI_Comm comm, const SourceFile& f, const std::string& dest, const TransferOptions& opt,
                             const std::function<void(uint64_t)>& progress) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const bool root = rank == 0;
    const uint64_t chunks = (f.size + opt.chunk - 1) / opt.chunk;
    auto chunk_len = [&](uint64_t i) { return static_cast<size_t>(std::min<uint64_t>(opt.chunk, f.size - i * opt.chunk)); };

    TransferResult res;
    std::string src_error;  // root only
    auto fail = [&](const std::string& why) {
        if (res.ok) {
            res.ok = false;
            res.error = why;
        }
    };

    int src_fd = -1, out_fd = -1;
    std::string tmp;
    if (root) {
        src_fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);  // the source is never opened for writing
        if (src_fd < 0) src_error = "cannot open source " + f.path + ": " + std::strerror(errno);
        else posix_fadvise(src_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    if (!dest.empty()) {
        tmp = temp_name(dest);
        out_fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (out_fd < 0) {
            fail("cannot create " + tmp + ": " + std::strerror(errno));
        } else if (f.size) {
            int e = posix_fallocate(out_fd, 0, static_cast<off_t>(f.size));
            if (e != 0 && e != EOPNOTSUPP && e != EINVAL) fail("cannot allocate " + std::to_string(f.size) + " bytes for " + dest + ": " + std::strerror(e));
        }
    }

    std::vector<std::vector<char>> bufs(static_cast<size_t>(std::max(2, opt.buffers)), std::vector<char>(opt.chunk));
    const int nbuf = static_cast<int>(bufs.size());
    Ring ring;
    XXH3_state_t* hs = XXH3_createState();
    XXH3_64bits_reset(hs);

    // I/O thread: root reads chunk i (and writes its own copy); receivers write chunk i.
    std::thread io([&] {
        for (uint64_t i = 0; i < chunks; ++i) {
            int s = ring.pop_wait(ring.to_io);
            char* p = bufs[static_cast<size_t>(s)].data();
            size_t n = chunk_len(i);
            uint64_t off = i * opt.chunk;
            if (root) {
                if (src_error.empty() && !read_all(src_fd, p, n, off))
                    src_error = "cannot read source " + f.path + ": " + std::strerror(errno);
                if (!src_error.empty()) std::memset(p, 0, n);
                else XXH3_64bits_update(hs, p, n);
            }
            if (out_fd >= 0 && res.ok) {
                if (!write_all(out_fd, p, n, off)) fail("cannot write " + tmp + ": " + std::strerror(errno));
                // Start writeback now so the disk works while the network does; the final fsync is then short.
                else ::sync_file_range(out_fd, static_cast<off_t>(off), static_cast<off_t>(n), SYNC_FILE_RANGE_WRITE);
            }
            ring.push(ring.to_mpi, s);
        }
    });

    // MPI thread (this one).
    std::deque<std::pair<int, MPI_Request>> inflight;
    uint64_t posted = 0, done = 0;
    if (root) {
        for (int s = 0; s < nbuf; ++s) ring.push(ring.to_io, s);
        while (done < chunks) {
            bool progressed = false;
            if (posted < chunks && static_cast<int>(inflight.size()) < nbuf) {
                int s = ring.try_pop(ring.to_mpi, false);
                if (s >= 0) {
                    MPI_Request r;
                    MPI_Ibcast(bufs[static_cast<size_t>(s)].data(), static_cast<int>(chunk_len(posted)), MPI_BYTE, 0, comm, &r);
                    inflight.emplace_back(s, r);
                    ++posted;
                    progressed = true;
                }
            }
            if (!inflight.empty()) {
                int flag = 0;
                MPI_Test(&inflight.front().second, &flag, MPI_STATUS_IGNORE);
                if (flag) {
                    ring.push(ring.to_io, inflight.front().first);
                    inflight.pop_front();
                    ++done;
                    if (progress) progress(std::min<uint64_t>(done * opt.chunk, f.size));
                    progressed = true;
                }
            }
            if (!progressed) {
                if (inflight.empty()) {
                    std::unique_lock lk(ring.m);
                    ring.cv.wait_for(lk, std::chrono::microseconds(200));
                } else {
                    std::this_thread::yield();  // let the I/O thread have the core; MPI needs polling to progress
                }
            }
        }
        // Drain: the I/O thread must not block on to_io after the last chunk.
    } else {
        std::deque<int> free_slots;
        for (int s = 0; s < nbuf; ++s) free_slots.push_back(s);
        while (done < chunks) {
            bool progressed = false;
            while (posted < chunks && !free_slots.empty()) {
                int s = free_slots.front();
                free_slots.pop_front();
                MPI_Request r;
                MPI_Ibcast(bufs[static_cast<size_t>(s)].data(), static_cast<int>(chunk_len(posted)), MPI_BYTE, 0, comm, &r);
                inflight.emplace_back(s, r);
                ++posted;
                progressed = true;
            }
            if (!inflight.empty()) {
                int flag = 0;
                MPI_Test(&inflight.front().second, &flag, MPI_STATUS_IGNORE);
                if (flag) {
                    ring.push(ring.to_io, inflight.front().first);
                    inflight.pop_front();
                    ++done;
                    progressed = true;
                }
            }
            // Slots the writer has finished with come back.
            for (int s; (s = ring.try_pop(ring.to_mpi, !progressed && inflight.empty())) >= 0;) {
                free_slots.push_back(s);
                progressed = true;
            }
            if (!progressed && !inflight.empty()) std::this_thread::yield();
        }
    }
    io.join();

    // Trailer from the root: did the read succeed, and the source's XXH3.
    unsigned long long trailer[2] = {src_error.empty() ? 1ull : 0ull, XXH3_64bits_digest(hs)};
    XXH3_freeState(hs);
    MPI_Bcast(trailer, 2, MPI_UNSIGNED_LONG_LONG, 0, comm);
    if (src_fd >= 0) ::close(src_fd);
    if (root && !src_error.empty()) fail(src_error);
    if (!trailer[0]) fail("the source could not be read on the reading rank");

    if (out_fd >= 0) {
        auto t = Clock::now();
        if (res.ok && ::ftruncate(out_fd, static_cast<off_t>(f.size)) != 0) fail("cannot size " + tmp + ": " + std::strerror(errno));
        if (res.ok && ::fchmod(out_fd, static_cast<mode_t>(f.mode)) != 0) fail("cannot set mode of " + tmp + ": " + std::strerror(errno));
        if (res.ok && ::fsync(out_fd) != 0) fail("cannot fsync " + tmp + ": " + std::strerror(errno));
        struct timespec times[2] = {{0, UTIME_OMIT}, {f.mtime_s, f.mtime_ns}};
        if (res.ok && ::futimens(out_fd, times) != 0) fail("cannot set mtime of " + tmp + ": " + std::strerror(errno));
        if (::close(out_fd) != 0) fail("cannot close " + tmp + ": " + std::strerror(errno));
        res.fsync_s = since(t);
        if (res.ok && opt.post_verify) {
            t = Clock::now();
            try {
                if (file_xxh3(tmp) != trailer[1]) fail("post-verify: XXH3 of " + tmp + " differs from the source");
            } catch (const std::exception& e) {
                fail(std::string("post-verify: ") + e.what());
            }
            res.verify_s = since(t);
        }
        if (res.ok && ::rename(tmp.c_str(), dest.c_str()) != 0) fail("cannot rename " + tmp + " to " + dest + ": " + std::strerror(errno));
        if (!res.ok) ::unlink(tmp.c_str());
    } else if (!tmp.empty()) {
        ::unlink(tmp.c_str());
    }
    return res;
}

}  // namespace seatmark::stage
