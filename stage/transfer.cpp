#include "stage/transfer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "stage/dest_file.h"
#include "stage/slot_queues.h"

namespace seatmark::stage {
namespace {

// Chunk buffers aligned for O_DIRECT, with room for the padded last chunk.
struct AlignedBuffer {
    explicit AlignedBuffer(size_t n) : p(static_cast<char*>(std::aligned_alloc(kDirectAlign, round_up_direct(n))), &std::free) {
        if (!p) throw std::bad_alloc();
    }
    std::unique_ptr<char, decltype(&std::free)> p;
    char* data() const { return p.get(); }
};

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

// Shared-memory MPI progresses only while a rank calls into it, so the MPI thread polls. A short
// sleep between polls instead of sched_yield: a chunk takes milliseconds to move, so polling every
// ~60 us costs little time, while spinning ranks (several per core when one machine plays several
// hosts) took a quarter of the CPU from the copies that do the work.
// The source must stay what was listed (size and mtime) from before its first byte is read until
// after its last: a file rewritten meanwhile would leave copies mixing two versions.
std::string source_changed(int fd, const SourceFile& f) {
    struct stat st{};
    if (::fstat(fd, &st) != 0) return "cannot stat source " + f.path + ": " + std::strerror(errno);
    if (static_cast<uint64_t>(st.st_size) != f.size || st.st_mtim.tv_sec != f.mtime_s || st.st_mtim.tv_nsec != f.mtime_ns)
        return "the source " + f.path + " changed while it was being staged (size or mtime differ); run again once it is stable";
    return {};
}

void poll_pause() { std::this_thread::sleep_for(std::chrono::microseconds(20)); }

}  // namespace

TransferResult transfer_file(MPI_Comm comm, const SourceFile& f, const std::string& dest, const TransferOptions& opt,
                             const std::function<void(uint64_t)>& progress) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const bool root = rank == 0;
    const uint64_t chunks = (f.size + opt.chunk - 1) / opt.chunk;
    auto chunk_len = [&](uint64_t i) { return static_cast<size_t>(std::min<uint64_t>(opt.chunk, f.size - i * opt.chunk)); };

    std::string src_error;  // root only
    int src_fd = -1;
    if (root) {
        src_fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);  // the source is never opened for writing
        if (src_fd < 0) src_error = "cannot open source " + f.path + ": " + std::strerror(errno);
        else src_error = source_changed(src_fd, f);
        if (src_fd >= 0) posix_fadvise(src_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    std::optional<DestFile> out;
    if (!dest.empty()) out.emplace(dest, f.size, opt.direct, f.sparse);

    std::vector<AlignedBuffer> bufs;
    for (int b = 0; b < std::max(2, opt.buffers); ++b) bufs.emplace_back(opt.chunk);
    const size_t nbuf = bufs.size();
    SlotQueues q;
    XXH3_state_t* hs = XXH3_createState();
    XXH3_64bits_reset(hs);

    // A slot's path: root: read -> broadcast -> write its own copy (if any) -> read again;
    // receivers: broadcast -> write -> free. Reading, the network and writing all overlap.
    std::thread reader, writer;
    for (size_t s = 0; s < nbuf; ++s) q.push(root ? SlotQueues::to_read : SlotQueues::free_slots, static_cast<int>(s));
    if (root)
        reader = std::thread([&] {
            for (uint64_t i = 0; i < chunks; ++i) {
                int s = q.pop_wait(SlotQueues::to_read);
                char* p = bufs[static_cast<size_t>(s)].data();
                const size_t n = chunk_len(i);
                if (src_error.empty() && !read_all(src_fd, p, n, i * opt.chunk))
                    src_error = "cannot read source " + f.path + ": " + std::strerror(errno);
                // The broadcast must go on (it is collective); receivers learn from the trailer.
                if (!src_error.empty()) std::memset(p, 0, n);
                else XXH3_64bits_update(hs, p, n);
                q.push(SlotQueues::to_mpi, s);
            }
        });
    if (out)
        writer = std::thread([&] {
            for (uint64_t i = 0; i < chunks; ++i) {
                int s = q.pop_wait(SlotQueues::to_write);
                out->write(bufs[static_cast<size_t>(s)].data(), chunk_len(i), i * opt.chunk);
                q.push(root ? SlotQueues::to_read : SlotQueues::free_slots, s);
            }
        });

    // MPI thread (this one): post broadcasts on ready slots, complete them in order.
    const auto ready_q = root ? SlotQueues::to_mpi : SlotQueues::free_slots;
    const auto done_q = out ? SlotQueues::to_write : root ? SlotQueues::to_read : SlotQueues::free_slots;
    std::deque<std::pair<int, MPI_Request>> inflight;
    uint64_t posted = 0, done = 0;
    while (done < chunks) {
        bool progressed = false;
        while (posted < chunks && inflight.size() < nbuf) {
            // Nothing in flight: nothing to poll either, so wait for the reader or writer.
            int s = q.try_pop(ready_q, inflight.empty() ? std::chrono::microseconds(200) : std::chrono::microseconds(0));
            if (s < 0) break;
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
                q.push(done_q, inflight.front().first);
                inflight.pop_front();
                ++done;
                if (root && progress) progress(std::min<uint64_t>(done * opt.chunk, f.size));
                progressed = true;
            }
        }
        if (!progressed && !inflight.empty()) poll_pause();
    }
    if (reader.joinable()) reader.join();
    if (src_fd >= 0 && src_error.empty()) src_error = source_changed(src_fd, f);
    if (writer.joinable()) writer.join();
    if (src_fd >= 0) ::close(src_fd);

    // Trailer from the root: did the read succeed, and the source's XXH3.
    unsigned long long trailer[2] = {src_error.empty() ? 1ull : 0ull, XXH3_64bits_digest(hs)};
    XXH3_freeState(hs);
    MPI_Bcast(trailer, 2, MPI_UNSIGNED_LONG_LONG, 0, comm);

    TransferResult res;
    auto fail = [&](const std::string& why) {
        if (res.ok) {
            res.ok = false;
            res.error = why;
        }
    };
    if (trailer[0]) res.source_xxh3 = trailer[1];
    if (root && !src_error.empty()) fail(src_error);
    if (out) {
        if (!trailer[0]) out->fail("the reading rank could not read the source whole (its error says why)");
        auto t = out->commit(f.mode, f.mtime_s, f.mtime_ns, opt.post_verify ? std::optional<uint64_t>(trailer[1]) : std::nullopt);
        if (!out->ok()) fail(out->error());
        res.fsync_s = t.fsync_s;
        res.verify_s = t.verify_s;
    } else if (!trailer[0]) {
        fail("the reading rank could not read the source whole (its error says why)");
    }
    return res;
}

}  // namespace seatmark::stage
