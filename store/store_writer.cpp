#include "store/store_writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "common/clock.h"
#include "common/errors.h"
#include "common/output_file.h"
#include "store/path_watch.h"
#include "store/schema.h"
#include "store/write_command.h"
#include "store/writer_lock.h"
#include "store/writer_statements.h"

namespace seatmark::store {

namespace {

// Removes an old database and its WAL/shm files for Options::overwrite.
void remove_existing(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        FileHandle probe = open_for_probe(path);
        if (writer_alive(probe))
            throw InputError(path + " is being written by a running seatmark; choose another --db");
    }
    for (const char* suffix : {"", "-wal", "-shm"}) {
        std::string p = path + suffix;
        if (::unlink(p.c_str()) != 0 && errno != ENOENT)
            throw InputError(p + ": cannot remove: " + std::strerror(errno));
    }
}

}  // namespace

struct StoreWriter::Impl {
    using Clock = std::chrono::steady_clock;

    std::string path;
    Options options;
    FileHandle lock;  // declared before db: closed after it (see writer_lock.h)
    PathWatch watch;  // whether `path` still names the file behind `lock`
    Db db;
    std::unique_ptr<WriterStatements> statements;

    // Shared between producers and the writer thread.
    mutable std::mutex mu;
    std::condition_variable wake;
    std::vector<cmd::Command> queue;
    bool run_begun = false;
    bool finish_queued = false;
    std::optional<std::string> error;
    int error_code = SQLITE_ERROR;
    std::atomic<uint64_t> queued_rows{0};
    std::atomic<uint64_t> stored_frames{0};
    std::atomic<uint64_t> dropped_frames{0};
    std::optional<PathLoss> loss;  // the first loss of the path seen (path_lost())
    std::string kept_at;           // where close_out() kept the copy

    // Writer thread only.
    bool in_tx = false;
    Clock::time_point tx_deadline;
    int64_t rows_in_tx = 0;
    uint64_t frames_in_tx = 0;
    bool failed = false;  // mirrors `error` for the thread, without the lock

    std::thread thread;
    bool finished = false;  // finish() returned (caller side)

    // Producers wake the writer only for a flush/finish or a large backlog; otherwise
    // it drains the queue once per commit interval. Waking it per batch cost the
    // orchestrator a context switch per telemetry message (measured by bench_orchestrator).
    static constexpr uint64_t wake_rows = 16384;  // about 1.3 s of 256 sessions at 60 FPS
    bool urgent = false;  // under mu

    void enqueue(cmd::Command c) {
        uint64_t rows = cmd::rows_of(c);
        bool wake_now = false;
        {
            std::lock_guard lk(mu);
            if (finish_queued) throw std::logic_error(path + ": store writer used after finish()");
            if (std::holds_alternative<cmd::Finish>(c)) finish_queued = true;
            if (std::holds_alternative<cmd::Finish>(c) || std::holds_alternative<cmd::Flush>(c)) urgent = true;
            queue.push_back(std::move(c));
            uint64_t queued = queued_rows.fetch_add(rows, std::memory_order_relaxed) + rows;
            wake_now = urgent || queued >= wake_rows;
        }
        if (wake_now) wake.notify_one();
    }

    void fail(const std::string& what, int code) {
        if (in_tx) statements->rollback();
        in_tx = false;
        dropped_frames += frames_in_tx;
        frames_in_tx = 0;
        rows_in_tx = 0;
        failed = true;
        std::lock_guard lk(mu);
        if (!error) {
            error = what;
            error_code = code;
        }
    }

    std::exception_ptr error_exception() const {
        std::lock_guard lk(mu);
        return std::make_exception_ptr(StoreError(error.value_or(path + ": store writer failed"), error_code));
    }

    void commit() {
        if (!in_tx) return;
        statements->commit();
        in_tx = false;
        stored_frames += frames_in_tx;
        frames_in_tx = 0;
        rows_in_tx = 0;
    }

    // Runs f; any failure in it puts the writer in its failed state (fail()).
    template <class F>
    void guarded(F&& f) {
        try {
            f();
        } catch (const StoreError& e) {
            fail(e.what(), e.code);
        } catch (const std::exception& e) {
            fail(path + ": " + e.what(), SQLITE_ERROR);
        }
    }

    // apply() writes `rows` rows inside the open transaction (begun if none); commits at commit_rows.
    template <class F>
    void in_transaction(int64_t rows, F&& apply) {
        if (!in_tx) {
            statements->begin();
            in_tx = true;
            tx_deadline = Clock::now() + options.commit_interval;
        }
        apply();
        rows_in_tx += rows;
        if (rows_in_tx >= options.commit_rows) commit();
    }

    void write(const cmd::Command& c) {
        // Counted first: if anything below fails, fail() counts these frames as dropped.
        if (auto* f = std::get_if<cmd::AddFrames>(&c)) frames_in_tx += f->frames.size();
        in_transaction(static_cast<int64_t>(cmd::rows_of(c)), [&] { statements->apply(c); });
    }

    // work[from, to) are AddFrames; as process() would, but their rows share add_frames() calls,
    // cut where a transaction reaches commit_rows (a failure then loses at most one transaction).
    void write_frames(std::vector<cmd::Command>& work, size_t from, size_t to) {
        std::vector<const cmd::AddFrames*> batch;
        int64_t rows = 0;
        auto write_batch = [&] {
            if (!batch.empty() && !failed) guarded([&] { in_transaction(rows, [&] { statements->add_frames(batch); }); });
            batch.clear();
            rows = 0;
        };
        for (size_t k = from; k < to; ++k) {
            queued_rows.fetch_sub(cmd::rows_of(work[k]), std::memory_order_relaxed);
            const auto* f = &std::get<cmd::AddFrames>(work[k]);
            if (failed) {
                dropped_frames += f->frames.size();
                continue;
            }
            batch.push_back(f);
            frames_in_tx += f->frames.size();  // counted first: fail() counts them as dropped
            rows += static_cast<int64_t>(f->frames.size());
            if (rows_in_tx + rows >= options.commit_rows) write_batch();
        }
        write_batch();
    }

    std::optional<PathLoss> path_lost() {
        std::lock_guard lk(mu);
        if (loss) return loss;
        std::string what = watch.check();
        if (what.empty()) return std::nullopt;
        PathLoss l;
        l.what = std::move(what);
        l.keep = reserve_rescue_file(path, l.tried);
        loss = l;
        return loss;
    }

    // The path no longer reaches the file: everything goes into a new one before the connection
    // (the last hold on the file's data) closes. VACUUM INTO writes a whole, consistent copy
    // (indexes included) through this connection, WAL content too, and refuses a non-empty target.
    void keep_elsewhere(const PathLoss& l) {
        if (l.keep.empty())
            throw StoreError(l.what + "; no place to keep a copy (" + l.tried + "): what the run stored is lost",
                             SQLITE_CANTOPEN);
        Stmt v(db, "VACUUM INTO ?1", "keeping a copy of the removed database");
        v.bind_text(1, l.keep);
        v.run();
        std::lock_guard lk(mu);
        kept_at = l.keep;
    }

    void close_out() {
        commit();
        db.exec(index_sql(), "building indexes");
        if (auto l = path_lost()) keep_elsewhere(*l);
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing");
        statements.reset();
        db.close();
    }

    // Returns false after Finish.
    bool process(cmd::Command& c) {
        queued_rows.fetch_sub(cmd::rows_of(c), std::memory_order_relaxed);
        auto* flush = std::get_if<cmd::Flush>(&c);
        auto* finish = std::get_if<cmd::Finish>(&c);
        if (!failed) {
            guarded([&] {
                if (flush) commit();
                else if (finish) close_out();
                else write(c);
            });
        } else if (auto* f = std::get_if<cmd::AddFrames>(&c)) {
            dropped_frames += f->frames.size();
        }
        if (finish && failed) {
            statements.reset();
            try {
                db.close();
            } catch (const StoreError&) {
            }
        }
        if (flush || finish) {
            auto& done = flush ? flush->done : finish->done;
            if (failed) done->set_exception(error_exception());
            else done->set_value();
        }
        return !finish;
    }

    void thread_main() {
        std::vector<cmd::Command> work;
        for (;;) {
            work.clear();
            {
                std::unique_lock lk(mu);
                auto ready = [&] { return urgent || queued_rows.load(std::memory_order_relaxed) >= wake_rows; };
                wake.wait_for(lk, options.commit_interval, ready);
                urgent = false;
                work.swap(queue);
            }
            for (size_t i = 0; i < work.size();) {
                // Frames of consecutive messages (many sessions) are written together.
                size_t j = i;
                while (j < work.size() && std::holds_alternative<cmd::AddFrames>(work[j])) ++j;
                if (j - i > 1 && !failed) {
                    write_frames(work, i, j);
                    i = j;
                    continue;
                }
                if (!process(work[i])) return;
                ++i;
            }
            if (in_tx && Clock::now() >= tx_deadline) guarded([&] { commit(); });
        }
    }

    // finish(), printing instead of throwing (destructor, move assignment).
    void finish_quietly() noexcept {
        if (finished) return;
        try {
            finish();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "seatmark: run database: %s\n", e.what());
        }
    }

    void finish() {
        if (finished) return;
        auto done = std::make_shared<std::promise<void>>();
        std::future<void> f = done->get_future();
        enqueue(cmd::Finish{done});
        finished = true;
        f.wait();
        thread.join();
        lock.close();
        f.get();
    }
};

StoreWriter::StoreWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StoreWriter::StoreWriter(StoreWriter&&) noexcept = default;

StoreWriter& StoreWriter::operator=(StoreWriter&& o) noexcept {
    if (this != &o) {
        if (impl_) impl_->finish_quietly();
        impl_ = std::move(o.impl_);
    }
    return *this;
}

StoreWriter::~StoreWriter() {
    if (impl_) impl_->finish_quietly();
}

StoreWriter StoreWriter::open(const std::string& path, Options options) {
    check_output_target(path, "--db");  // before anything is removed: never an input, a device or a FIFO
    if (options.overwrite) remove_existing(path);
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->options = options;
    impl->lock = create_locked(path);
    impl->watch = PathWatch(path, impl->lock.fd());
    try {
        impl->db = Db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
        configure_writer(impl->db);
        create_schema(impl->db);
        if (options.max_page_count > 0) {
            std::string pragma = "PRAGMA max_page_count=" + std::to_string(options.max_page_count);
            impl->db.exec(pragma.c_str(), "limiting the file size");
        }
        impl->statements = std::make_unique<WriterStatements>(impl->db);
    } catch (...) {
        impl->statements.reset();
        impl->db = Db();
        for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((path + suffix).c_str());
        throw;
    }
    Impl* p = impl.get();
    impl->thread = std::thread([p] { p->thread_main(); });
    return StoreWriter(std::move(impl));
}

const std::string& StoreWriter::path() const { return impl_->path; }

uint64_t StoreWriter::begin_run(RunInfo run) {
    {
        std::lock_guard lk(impl_->mu);
        if (impl_->run_begun) throw std::logic_error(impl_->path + ": begin_run() called twice");
        impl_->run_begun = true;
    }
    if (run.started_unix_ns == 0) run.started_unix_ns = unix_now_ns();
    if (run.mono_origin_ns == 0) run.mono_origin_ns = now_ns();
    impl_->enqueue(cmd::BeginRun{std::move(run)});
    return static_cast<uint64_t>(the_run_id);
}

void StoreWriter::end_run(RunStatus status, int64_t ended_unix_ns, std::optional<int64_t> max_density) {
    impl_->enqueue(cmd::EndRun{status, ended_unix_ns ? ended_unix_ns : unix_now_ns(), max_density});
}

void StoreWriter::add_host(HostInfo host) { impl_->enqueue(cmd::AddHost{std::move(host)}); }
void StoreWriter::begin_step(StepInfo step) { impl_->enqueue(cmd::BeginStep{step}); }
void StoreWriter::end_step(StepEnd result) { impl_->enqueue(cmd::EndStep{std::move(result)}); }
void StoreWriter::add_verdict(VerdictRow verdict) { impl_->enqueue(cmd::AddVerdict{std::move(verdict)}); }
void StoreWriter::add_session(SessionInfo session) { impl_->enqueue(cmd::AddSession{std::move(session)}); }

void StoreWriter::set_session_device(int session_id, SessionDevice device) {
    impl_->enqueue(cmd::SetDevice{session_id, std::move(device)});
}

void StoreWriter::update_session_end(SessionResult result) {
    impl_->enqueue(cmd::EndSession{std::move(result)});
}

void StoreWriter::add_frames(int session_id, std::vector<FrameRecord> frames) {
    if (frames.empty()) return;
    impl_->enqueue(cmd::AddFrames{session_id, std::move(frames)});
}

void StoreWriter::add_sample(SampleRow sample) {
    std::vector<SampleRow> one;
    one.push_back(std::move(sample));
    impl_->enqueue(cmd::AddSamples{std::move(one)});
}

void StoreWriter::add_samples(std::vector<SampleRow> samples) {
    if (samples.empty()) return;
    impl_->enqueue(cmd::AddSamples{std::move(samples)});
}

void StoreWriter::add_event(EventRow event) { impl_->enqueue(cmd::AddEvent{std::move(event)}); }
void StoreWriter::add_endpoint_logon(EndpointLogonRow logon) { impl_->enqueue(cmd::AddEndpointLogon{std::move(logon)}); }
void StoreWriter::add_endpoint_batch(EndpointBatch batch) {
    if (batch.arrivals.empty() && batch.ssim.empty()) return;
    impl_->enqueue(cmd::AddEndpointBatch{std::move(batch)});
}

void StoreWriter::flush() {
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> f = done->get_future();
    impl_->enqueue(cmd::Flush{done});
    f.get();
}

void StoreWriter::finish() { impl_->finish(); }

std::optional<StoreWriter::PathLoss> StoreWriter::path_lost() const { return impl_->path_lost(); }

std::string StoreWriter::kept_at() const {
    std::lock_guard lk(impl_->mu);
    return impl_->kept_at;
}

uint64_t StoreWriter::frames_stored() const { return impl_->stored_frames.load(); }
uint64_t StoreWriter::frames_dropped() const { return impl_->dropped_frames.load(); }
uint64_t StoreWriter::queue_depth() const { return impl_->queued_rows.load(std::memory_order_relaxed); }

std::optional<std::string> StoreWriter::error() const {
    std::lock_guard lk(impl_->mu);
    return impl_->error;
}

}  // namespace seatmark::store
