// How fast the run database takes frames, against SQLite itself in the same run.
//
//  (a) peer: raw SQLite, one row per frame in a table with the columns of schema 3's frames
//      table (schema 4 stores frames in blocks, store/frame_block.h), a fresh file with the
//      writer's connection settings (WAL, synchronous=NORMAL), one prepared INSERT, all N rows in
//      one transaction: the textbook fast path for bulk inserts of rows.
//  (b) StoreWriter::add_frames from 4 producer threads in batches of 64 frames, timed from the
//      first add_frames until flush() returned and frames_stored() == N (batched commits every
//      100 ms or 20000 rows, writer thread, queue).
// Prints rows/s of both and the ratio (b)/(a). Goal (issue "Store"): >= 0.7.
// Usage: bench_ingest [N]   (default 2,000,000)
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/frame_record.h"
#include "store/schema.h"
#include "store/sqlite_handle.h"
#include "store/store_writer.h"

using namespace seatmark;
using namespace seatmark::store;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<FrameRecord> make_frames(size_t n) {
    std::vector<FrameRecord> v(n);
    for (size_t i = 0; i < n; ++i) {
        FrameRecord& f = v[i];
        f.seq = i;
        f.t_begin_ns = 1'000'000'000'000 + static_cast<int64_t>(i) * 16'666'667;
        f.cpu_ns = 900'000 + static_cast<int64_t>(i % 977) * 100;
        f.gpu_ns = 4'000'000 + static_cast<int64_t>(i % 1013) * 1000;
        f.interval_ns = i % 500 == 0 ? -1 : 16'666'667 + static_cast<int64_t>(i % 101) * 1000;
        f.latency_ns = i % 8 == 0 ? 35'000'000 : -1;
        f.stretch = static_cast<uint32_t>(i / 500);
        f.mode = static_cast<uint16_t>((i / 3000) % 6);
        f.flags = static_cast<uint16_t>(i % 8 == 0 ? 1 : 0);
    }
    return v;
}

void remove_db(const std::string& path) {
    for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path + s);
}

// (a) raw prepared inserts, one transaction.
double raw_sqlite(const std::string& path, const std::vector<FrameRecord>& frames, int sessions) {
    remove_db(path);
    Db db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
    configure_writer(db);
    create_schema(db);
    db.exec("CREATE TABLE frame_rows(session_id INTEGER NOT NULL, seq INTEGER NOT NULL, t_begin_ns INTEGER NOT NULL,"
            " cpu_ns INTEGER NOT NULL, gpu_ns INTEGER NOT NULL, interval_ns INTEGER NOT NULL, latency_ns INTEGER NOT NULL,"
            " stretch INTEGER NOT NULL, mode INTEGER NOT NULL, flags INTEGER NOT NULL,"
            " begin_interval_ns INTEGER NOT NULL DEFAULT -1, t_present_ns INTEGER NOT NULL DEFAULT 0) STRICT",
            "bench");
    Stmt ins(db,
             "INSERT INTO frame_rows(session_id, seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns, latency_ns,"
             " stretch, mode, flags) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
             "storing frames");
    auto t0 = Clock::now();
    db.exec("BEGIN", "bench");
    const size_t per = frames.size() / static_cast<size_t>(sessions);
    for (size_t i = 0; i < frames.size(); ++i) {
        const FrameRecord& f = frames[i];
        ins.bind_int(1, static_cast<int64_t>(i / per) + 1).bind_int(2, static_cast<int64_t>(f.seq));
        ins.bind_int(3, f.t_begin_ns).bind_int(4, f.cpu_ns).bind_int(5, f.gpu_ns);
        ins.bind_int(6, f.interval_ns).bind_int(7, f.latency_ns).bind_int(8, f.stretch);
        ins.bind_int(9, f.mode).bind_int(10, f.flags).run();
    }
    db.exec("COMMIT", "bench");
    return seconds_since(t0);
}

// (b) StoreWriter from `producers` threads; returns seconds until everything is committed.
double store_writer(const std::string& path, const std::vector<FrameRecord>& frames, int producers,
                    size_t batch, uint64_t& stored, uint64_t& max_queue, double& finish_s) {
    remove_db(path);
    StoreWriter w = StoreWriter::open(path);
    const size_t per = frames.size() / static_cast<size_t>(producers);
    std::vector<std::thread> threads;
    std::atomic<uint64_t> peak{0};
    auto t0 = Clock::now();
    for (int p = 0; p < producers; ++p) {
        threads.emplace_back([&, p] {
            size_t begin = static_cast<size_t>(p) * per;
            size_t end = p + 1 == producers ? frames.size() : begin + per;
            for (size_t i = begin; i < end; i += batch) {
                size_t n = std::min(batch, end - i);
                w.add_frames(p + 1, std::vector<FrameRecord>(frames.begin() + static_cast<ptrdiff_t>(i),
                                                             frames.begin() + static_cast<ptrdiff_t>(i + n)));
                uint64_t q = w.queue_depth();
                uint64_t old = peak.load(std::memory_order_relaxed);
                while (q > old && !peak.compare_exchange_weak(old, q)) {
                }
            }
        });
    }
    for (auto& t : threads) t.join();
    w.flush();
    double s = seconds_since(t0);
    stored = w.frames_stored();
    max_queue = peak.load();
    auto t1 = Clock::now();
    w.finish();
    finish_s = seconds_since(t1);
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
    if (n == 0) {
        std::fprintf(stderr, "usage: bench_ingest [N>0]\n");
        return 2;
    }
    constexpr int producers = 4;
    constexpr size_t batch = 64;
    std::string dir = (std::filesystem::temp_directory_path() / ("seatmark-bench-ingest-" + std::to_string(getpid()))).string();
    std::filesystem::create_directories(dir);
    std::vector<FrameRecord> frames = make_frames(n);

    std::printf("bench_ingest: %zu frame rows into %s (%u hardware threads)\n", n, dir.c_str(),
                std::thread::hardware_concurrency());
    double a = raw_sqlite(dir + "/raw.db", frames, producers);
    uint64_t stored = 0, max_queue = 0;
    double finish_s = 0;
    double b = store_writer(dir + "/store.db", frames, producers, batch, stored, max_queue, finish_s);
    auto size_mb = [](const std::string& p) { return static_cast<double>(std::filesystem::file_size(p)) / 1e6; };
    double ra = static_cast<double>(n) / a, rb = static_cast<double>(n) / b;
    std::printf("  (a) raw SQLite, prepared INSERT, one transaction, WAL+NORMAL : %10.0f rows/s  (%.2f s)\n", ra, a);
    std::printf("  (b) StoreWriter::add_frames, %d threads x batches of %zu     : %10.0f rows/s  (%.2f s, stored %llu, "
                "peak queue %llu rows)\n",
                producers, batch, rb, b, static_cast<unsigned long long>(stored),
                static_cast<unsigned long long>(max_queue));
    std::printf("      then finish() (index frame_blocks_by_session, WAL checkpoint): %.2f s; file %.0f MB\n", finish_s,
                size_mb(dir + "/store.db"));
    std::printf("  ratio (b)/(a) = %.2f  (goal >= 0.70)\n", rb / ra);
    std::filesystem::remove_all(dir);
    if (stored != n) {
        std::fprintf(stderr, "bench_ingest: stored %llu of %zu frames\n", static_cast<unsigned long long>(stored), n);
        return 1;
    }
    return 0;
}
