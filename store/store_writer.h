#pragma once
// Writes one run database. Every public method is thread-safe, enqueues a command and returns
// at once; one writer thread owns the SQLite connection, drains the queue and commits batched
// transactions (every StoreOptions::commit_interval or commit_rows rows, whichever comes
// first). A batch commits atomically, so a killed process leaves whole batches: each session's
// stored frames are the prefix of what it queued.
//
// A failure on the writer thread (disk full, I/O error) is kept: error() reports it, the
// commands after it are dropped (frames counted in frames_dropped()), and the next flush() or
// finish() throws StoreError with SQLite's message and the path.
//
// The queue is unbounded (a producer never blocks); queue_depth() tells how far the writer is
// behind. bench/bench_ingest.cpp measures the writer against raw SQLite inserts.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "store/endpoint_rows.h"
#include "store/records.h"
#include "store/sqlite_handle.h"

namespace seatmark::store {

struct StoreOptions {
    bool overwrite = false;  // replace an existing file (refused while its writer is alive)
    // Longest time rows wait uncommitted. A second: sessions send once a second, and each commit
    // rewrites the partly filled last pages of the tables it touches (docs/store.md).
    std::chrono::milliseconds commit_interval{1000};
    int64_t commit_rows = 20000;                      // or commit once this many rows are pending
    // Caps the file at this many pages (PRAGMA max_page_count; 0: no cap). Writing past it
    // fails like a full disk, which is how tests exercise the error path.
    int64_t max_page_count = 0;
};

class StoreWriter {
public:
    using Options = StoreOptions;

    // Creates `path` with the schema. Throws InputError when it exists (unless overwrite) or
    // cannot be created: "run.db exists; choose another --db or remove it".
    static StoreWriter open(const std::string& path, Options options = {});

    StoreWriter(StoreWriter&&) noexcept;
    StoreWriter& operator=(StoreWriter&&) noexcept;
    ~StoreWriter();  // finish() if not done; an error then is printed on stderr

    const std::string& path() const;

    uint64_t begin_run(RunInfo run);  // once; returns the run id (always 1)
    // ended_unix_ns 0: wall clock now. max_density: the run's result, when it has one.
    void end_run(RunStatus status, int64_t ended_unix_ns = 0, std::optional<int64_t> max_density = std::nullopt);
    void add_host(HostInfo host);
    void begin_step(StepInfo step);
    void end_step(StepEnd result);
    void add_verdict(VerdictRow verdict);  // with its reasons
    void add_session(SessionInfo session);
    void set_session_device(int session_id, SessionDevice device);
    void update_session_end(SessionResult result);
    void add_frames(int session_id, std::vector<FrameRecord> frames);
    void add_sample(SampleRow sample);
    void add_samples(std::vector<SampleRow> samples);
    void add_event(EventRow event);
    // Endpoint tables (store/endpoint_rows.h): a logon row is written whole (again on each change).
    void add_endpoint_logon(EndpointLogonRow logon);
    void add_endpoint_batch(EndpointBatch batch);

    // Blocks until everything queued before the call is committed. Throws StoreError if the
    // writer has failed.
    void flush();
    // Commits, builds the indexes, checkpoints the WAL into the file (TRUNCATE), closes the
    // connection and stops the thread. Further calls are no-ops; enqueueing afterwards throws
    // std::logic_error. Throws StoreError if the writer has failed.
    void finish();

    // The database's path no longer names the file being written (store/path_watch.h: its folder
    // or the file removed, or replaced): what happened, and the new file finish() keeps a copy of
    // everything in (VACUUM INTO; "" when no place could be made, with what was tried). nullopt
    // while the path is fine. Checks on the caller's thread (one stat); finish() checks again.
    struct PathLoss {
        std::string what;    // "DIR/run.db is gone: its folder DIR was removed while the run was writing it (...)"
        std::string keep;    // where the copy goes, reserved at the first loss seen
        std::string tried;   // when keep is "": each place tried and why not
    };
    std::optional<PathLoss> path_lost() const;
    // After finish(): the file the copy was written to, "" when the path was never lost.
    std::string kept_at() const;

    uint64_t frames_stored() const;   // frames committed
    uint64_t frames_dropped() const;  // frames lost to a writer error (never silently)
    uint64_t queue_depth() const;     // rows queued but not yet written
    std::optional<std::string> error() const;  // the first writer error, if any

    struct Impl;

private:
    explicit StoreWriter(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace seatmark::store
