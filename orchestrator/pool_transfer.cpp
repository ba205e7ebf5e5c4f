#include "orchestrator/pool_transfer.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "common/clock.h"

namespace seatmark::orchestrator {

namespace {

int64_t deadline_after(double s) { return now_ns() + static_cast<int64_t>(s * 1e9); }

std::string mib(uint64_t bytes) {
    char b[48];
    std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / (1 << 20));
    return b;
}

}  // namespace

std::string send_database(PoolComm& comm, const std::string& path, double first_timeout_s, double timeout_s,
                          const std::function<void()>& after_chunk) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    std::ifstream in(path, std::ios::binary);
    const uint64_t total = (ec || !in) ? 0 : uint64_t(size);
    if (!comm.send(0, tag_db, &total, sizeof total, deadline_after(first_timeout_s)))
        return "rank 0 did not take the database's size within " + std::to_string(int(first_timeout_s)) + " s";
    if (total == 0) return "cannot read " + path + (ec ? ": " + ec.message() : "") + " (rank 0 was told it is empty)";
    std::vector<char> buf(std::min<uint64_t>(db_chunk_bytes, total));
    for (uint64_t at = 0; at < total;) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(db_chunk_bytes, total - at));
        if (!in.read(buf.data(), static_cast<std::streamsize>(n)))
            return "reading " + path + " failed at byte " + std::to_string(at) + " of " + std::to_string(total);
        const double wait_s = at == 0 ? first_timeout_s : timeout_s;
        if (!comm.send(0, tag_db, buf.data(), n, deadline_after(wait_s))) {
            // Open MPI cannot cancel a send: the request may still read the chunk if rank 0 posts
            // its receive later, so the buffer is left allocated (the rank then ends without
            // MPI_Finalize, see pool_run.cpp).
            new std::vector<char>(std::move(buf));
            return "rank 0 took no chunk for " + std::to_string(int(wait_s)) + " s after " + mib(at) + " of " + mib(total);
        }
        at += n;
        if (after_chunk) after_chunk();
    }
    return "";
}

void receive_databases(PoolComm&, std::vector<IncomingDatabase>& in, double first_timeout_s, double timeout_s) {
    struct State {
        std::unique_ptr<PoolComm::Pending> pending;
        std::ofstream out;
        uint64_t total = 0, got = 0;
        bool head = true, done = false;
        int64_t deadline = 0;
    };
    std::vector<State> st(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        st[i].pending = std::make_unique<PoolComm::Pending>(in[i].from, tag_db, sizeof(uint64_t));
        st[i].deadline = deadline_after(first_timeout_s);
    }
    auto finish = [&](size_t i, std::string problem) {
        st[i].done = true;
        st[i].pending.reset();  // cancels a receive still posted
        st[i].out.close();
        if (problem.empty() && !st[i].out) problem = "writing " + in[i].path + " failed";
        in[i].problem = std::move(problem);
        if (!in[i].problem.empty()) std::filesystem::remove(in[i].path);
    };
    for (size_t left = in.size(); left > 0;) {
        bool moved = false;
        for (size_t i = 0; i < in.size(); ++i) {
            State& s = st[i];
            if (s.done) continue;
            if (!s.pending->ready()) {
                if (now_ns() >= s.deadline) {
                    finish(i, s.head ? "no database came within " + std::to_string(int(first_timeout_s)) + " s"
                                     : "no chunk came for " + std::to_string(int(timeout_s)) + " s after " + mib(s.got) +
                                           " of " + mib(s.total));
                    --left;
                }
                continue;
            }
            moved = true;
            if (s.head) {
                std::memcpy(&s.total, s.pending->data(), sizeof s.total);
                s.head = false;
                if (s.total == 0) {
                    finish(i, "its host had no database to send (see that host's messages)");
                    --left;
                    continue;
                }
                s.out.open(in[i].path, std::ios::binary | std::ios::trunc);
            } else {
                const size_t n = static_cast<size_t>(std::min<uint64_t>(db_chunk_bytes, s.total - s.got));
                s.out.write(s.pending->data(), static_cast<std::streamsize>(n));
                s.got += n;
                if (s.got == s.total) {
                    finish(i, "");
                    --left;
                    continue;
                }
            }
            const size_t next = static_cast<size_t>(std::min<uint64_t>(db_chunk_bytes, s.total - s.got));
            s.pending = std::make_unique<PoolComm::Pending>(in[i].from, tag_db, next);
            s.deadline = deadline_after(timeout_s);
        }
        if (!moved && left > 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

void wait_bye(PoolComm& comm, double timeout_s) { comm.recv(0, tag_bye, deadline_after(timeout_s)); }

}  // namespace seatmark::orchestrator
