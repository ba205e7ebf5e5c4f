#include "report/frame_scan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <unordered_map>

#include "common/errors.h"
#include "store/frame_block.h"
#include "store/frame_row.h"
#include "store/schema.h"
#include "store/sqlite_handle.h"
#include "store/store_reader.h"

namespace seatmark::report {

namespace {

using store::Db;
using store::Stmt;

Db open_reader(const std::string& path) {
    // One connection per thread, used by that thread only: no per-call mutex (NOMUTEX), which
    // otherwise costs more than a tenth of the scan.
    Db db = store::open_read_only(path, SQLITE_OPEN_NOMUTEX);
    sqlite3_busy_timeout(db.get(), 5000);
    // Memory-mapped reads avoid a copy per page; the cache holds what the mapping cannot.
    db.exec("PRAGMA mmap_size = 17179869184", "setting up the frame scan");
    db.exec("PRAGMA cache_size = -65536", "setting up the frame scan");
    return db;
}

struct Part {
    std::unordered_map<int, std::vector<FrameRecord>> sessions;
    std::exception_ptr error;
    // Scan state, used by the collecting function below.
    const std::map<int, uint64_t>* expected = nullptr;
    uint64_t total = 0;
    std::atomic<uint64_t>* done = nullptr;
    std::vector<FrameRecord>* cur = nullptr;
    int cur_id = 0;
    uint64_t since = 0;

    // The array the frames of session `id` go to.
    std::vector<FrameRecord>& session(int id) {
        if (!cur || id != cur_id) {
            auto [it, fresh] = sessions.try_emplace(id);
            cur = &it->second;
            cur_id = id;
            // Reserving the whole session's count in every part only reserves address space:
            // pages are touched as rows arrive, and the first part's array then takes the rest.
            if (auto e = expected->find(id); fresh && e != expected->end()) cur->reserve(std::min(e->second, total));
        }
        return *cur;
    }
    void count(uint64_t n) {
        since += n;
        if (since >= 65536) {
            done->fetch_add(since, std::memory_order_relaxed);
            since = 0;
        }
    }
};

// The rows are handed to an aggregate SQL function instead of being stepped out as result
// rows: SQLite then passes each row's values straight to us, which saves most of the per-row
// API cost (a quarter of the scan). Registered as SQLITE_DIRECTONLY: the file's own schema
// (views, triggers) can never call it.
void collect_row(sqlite3_context* ctx, int, sqlite3_value** v) {
    Part& p = *static_cast<Part*>(sqlite3_user_data(ctx));
    try {
        FrameRecord& f = p.session(sqlite3_value_int(v[0])).emplace_back();
        f.seq = static_cast<uint64_t>(sqlite3_value_int64(v[1]));
        f.t_begin_ns = sqlite3_value_int64(v[2]);
        f.cpu_ns = sqlite3_value_int64(v[3]);
        f.gpu_ns = sqlite3_value_int64(v[4]);
        f.interval_ns = sqlite3_value_int64(v[5]);
        f.latency_ns = sqlite3_value_int64(v[6]);
        p.count(1);
    } catch (const std::bad_alloc&) {
        sqlite3_result_error_nomem(ctx);
    }
}

void collect_final(sqlite3_context* ctx) { sqlite3_result_null(ctx); }

// Schema 4: the blocks of rowids [lo, hi], decoded here (no row per frame through SQLite at all).
void scan_blocks(const Db& db, int64_t lo, int64_t hi, Part& part) {
    Stmt s(db, "SELECT rowid, session_id, frames, records FROM frame_blocks WHERE rowid >= ?1 AND rowid <= ?2",
           "reading frames");
    s.bind_int(1, lo).bind_int(2, hi);
    while (s.step()) {
        const int64_t block = s.col_int(0), session = s.col_int(1), n = s.col_int(2);
        std::string bad;
        const unsigned char* blob = store::checked_block(s.get(), 3, block, session, n, bad);
        if (!blob) throw InputError(db.path() + ": " + bad);
        auto& out = part.session(static_cast<int>(session));
        for (size_t i = 0; i < static_cast<size_t>(n); ++i) out.push_back(store::decode_frame(blob, i));
        part.count(static_cast<uint64_t>(n));
    }
}

void scan_range(const std::string& path, bool blocks, int64_t lo, int64_t hi, const std::map<int, uint64_t>& expected,
                uint64_t total, Part& part, std::atomic<uint64_t>& done) {
    try {
        Db db = open_reader(path);
        part.expected = &expected;
        part.total = total;
        part.done = &done;
        if (blocks) {
            scan_blocks(db, lo, hi, part);
            done.fetch_add(part.since, std::memory_order_relaxed);
            return;
        }
        int rc = sqlite3_create_function_v2(db.get(), "seatmark_collect_frames", 7,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, &part, nullptr,
                                            collect_row, collect_final, nullptr);
        if (rc != SQLITE_OK) db.fail(rc, "reading frames");
        Stmt s(db,
               "SELECT seatmark_collect_frames(session_id, seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns, latency_ns)"
               " FROM frames WHERE rowid >= ?1 AND rowid <= ?2",
               "reading frames");
        s.bind_int(1, lo).bind_int(2, hi);
        while (s.step()) {
        }
        done.fetch_add(part.since, std::memory_order_relaxed);
    } catch (...) {
        part.error = std::current_exception();
    }
}

}  // namespace

std::map<int, std::vector<FrameRecord>> scan_frames(const std::string& db_path, const FrameScanOptions& options) {
    int64_t lo = 0, hi = -1;
    uint64_t total = 0;
    bool blocks = false;
    {
        Db db = open_reader(db_path);
        blocks = store::validate_schema(db) >= store::first_block_version;
        // Rows are never deleted: the rowid span is a good estimate of the rows; blocks count their frames.
        Stmt s(db, blocks ? "SELECT min(rowid), max(rowid), sum(frames) FROM frame_blocks"
                          : "SELECT min(rowid), max(rowid), max(rowid) - min(rowid) + 1 FROM frames",
               "reading frames");
        if (s.step() && !s.col_null(0)) {
            lo = s.col_int(0);
            hi = s.col_int(1);
            total = static_cast<uint64_t>(std::max<int64_t>(s.col_int(2), 0));
        }
    }
    std::map<int, std::vector<FrameRecord>> out;
    if (hi < lo) return out;
    const int threads = std::clamp(options.threads, 1, 8);
    const int64_t span = hi - lo + 1;
    const int parts_n = total < 200000 || span < threads ? 1 : threads;
    std::vector<Part> parts(static_cast<size_t>(parts_n));
    std::atomic<uint64_t> done{0};
    std::atomic<int> running{parts_n};
    std::vector<std::thread> pool;
    for (int i = 0; i < parts_n; ++i) {
        const int64_t step = span / parts_n;
        int64_t a = lo + step * i, b = i + 1 == parts_n ? hi : lo + step * (i + 1) - 1;
        pool.emplace_back([&, a, b, i] {
            scan_range(db_path, blocks, a, b, options.expected, total, parts[static_cast<size_t>(i)], done);
            running.fetch_sub(1);
        });
    }
    // Report progress until every reader is through (a thread decrements `running` when it ends).
    for (int tick = 1; running.load() > 0; ++tick) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (options.progress && tick % 10 == 0 && running.load() > 0)
            options.progress(std::min(done.load(std::memory_order_relaxed), total), total);
    }
    for (auto& t : pool) t.join();
    if (options.progress) options.progress(done.load(), done.load());
    for (auto& p : parts)
        if (p.error) std::rethrow_exception(p.error);

    // Concatenate each session's parts in rowid order.
    for (auto& p : parts) {
        for (auto& [id, frames] : p.sessions) {
            auto& dst = out[id];
            if (dst.empty())
                dst = std::move(frames);
            else
                dst.insert(dst.end(), frames.begin(), frames.end());
            std::vector<FrameRecord>().swap(frames);
        }
    }
    for (auto& [id, frames] : out) {
        auto by_time = [](const FrameRecord& a, const FrameRecord& b) {
            return a.t_begin_ns < b.t_begin_ns || (a.t_begin_ns == b.t_begin_ns && a.seq < b.seq);
        };
        if (!std::is_sorted(frames.begin(), frames.end(), by_time)) std::stable_sort(frames.begin(), frames.end(), by_time);
    }
    return out;
}

}  // namespace seatmark::report
