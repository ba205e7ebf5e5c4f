#pragma once
// Reads one run database, read-only. Opening validates it (store/schema.h lists the
// messages) and, when the writer died before building the indexes, builds them once (the only
// write a reader ever makes; skipped when the file is not writable or its writer still runs).
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "store/endpoint_rows.h"
#include "store/records.h"
#include "store/sqlite_handle.h"
#include "store/writer_lock.h"

namespace seatmark::store {

struct SampleQuery {
    std::string metric;              // "" : any
    std::string source;              // "" : any
    std::optional<int> session_id;   // only this session's samples
    bool host_wide = false;          // only host-wide samples (session_id IS NULL)
    std::optional<std::string> host; // only samples of this samples.host ("": the writer's own)
    int64_t t0 = std::numeric_limits<int64_t>::min();  // t_ns in [t0, t1)
    int64_t t1 = std::numeric_limits<int64_t>::max();
};

// A read-only connection to a run database, also where SQLite's usual read-only open is refused
// (read-only mount, another user's 0444 file, read-only folder): a finished run is then opened
// as immutable. Throws InputError naming the file (and what to do when it cannot be read).
// `extra_flags` are added to SQLITE_OPEN_READONLY (e.g. SQLITE_OPEN_NOMUTEX).
Db open_read_only(const std::string& path, int extra_flags = 0);

class StoreReader {
public:
    // Throws InputError naming the file and what was expected (see validate_schema()).
    explicit StoreReader(const std::string& path);
    ~StoreReader();
    StoreReader(StoreReader&&) noexcept = default;
    StoreReader& operator=(StoreReader&& o) noexcept;

    const std::string& path() const { return path_; }

    RunRow run() const;  // throws InputError when the writer died before storing the run
    // The file's schema version (oldest_readable_version .. schema_version). A version-2 file
    // reads as a pool of one: its sessions' host is runs.host, its samples', events' and
    // verdicts' host is "", its host row has the defaults of the version-3 columns.
    int schema_version() const { return version_; }
    std::vector<HostRow> hosts() const;        // by rank (NULL last), then hostname
    std::vector<StepRow> steps() const;        // by idx, repeat (run-wide)
    // A pool run's scaling rows, by hosts (empty: not a pool run's merged file, or a file from
    // before the table existed).
    std::vector<ScalingRow> scaling() const;
    // The pool's verdicts (host ""; in a single-host run the run's): by step, repeat (the pooled
    // one, -1, first); with reasons.
    std::vector<VerdictRow> verdicts() const;
    std::vector<VerdictRow> host_verdicts(const std::string& host) const;  // that host's own verdicts
    std::vector<VerdictRow> all_verdicts() const;  // every row, by host ("" first), step, repeat
    std::vector<SessionRow> sessions() const;  // by id
    std::vector<FrameRecord> frames(int session_id) const;  // by seq
    std::vector<FrameRecord> frames_in(int session_id, int64_t t0, int64_t t1) const;  // t_begin in [t0, t1), by seq
    uint64_t frame_count() const;
    uint64_t frame_count(int session_id) const;
    std::vector<SampleRow> samples(const SampleQuery& q = {}) const;  // by t_ns
    std::vector<EventRow> events() const;                             // by t_ns, then as stored
    // Endpoint tables (store/endpoint_reader.cpp); empty for files written before they existed.
    bool has_endpoint_tables() const;
    std::vector<EndpointLogonRow> endpoint_logons() const;          // by id
    std::map<int, core::EndpointSeries> endpoint_series() const;    // per launched session: arrivals by seq, SSIM samples

    // The run's status as stored, except that a run still 'running' whose writer is gone
    // (killed, crashed, power lost) is `crashed`: it did not finish.
    RunStatus effective_status() const;
    bool writer_alive() const;  // the process writing this file is still running

    bool integrity_ok() const;                     // PRAGMA integrity_check says "ok"
    std::vector<std::string> integrity_check() const;  // its messages

private:
    std::vector<FrameRecord> block_frames(int session_id, const int64_t* range) const;  // schema 4
    bool has_column(const char* table, const char* column) const;
    std::vector<VerdictRow> verdicts_where(const std::optional<std::string>& host) const;  // nullopt: all

    std::string path_;
    int version_ = 0;
    FileHandle probe_;  // for writer_alive(); declared first: closed after db_ (writer_lock.h)
    Db db_;
};

// Words for a run status in reports: "finished", "aborted", "did not finish (crashed)", ...
std::string describe(RunStatus s);

}  // namespace seatmark::store
