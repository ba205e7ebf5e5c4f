#include "store/store_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/errors.h"
#include "common/input_file.h"
#include "store/frame_block.h"
#include "store/frame_row.h"
#include "store/schema.h"

namespace seatmark::store {

namespace {

std::optional<int> opt_int(const std::optional<int64_t>& v) {
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

// A writer that died never built the indexes: build them with a short-lived writable
// connection. Not possible (read-only file or directory) is fine: queries are just slower.
void build_missing_indexes(const std::string& path) {
    try {
        Db rw(path, SQLITE_OPEN_READWRITE);
        rw.exec(index_sql(validate_schema(rw)), "building indexes");
    } catch (const StoreError&) {
    }
}

bool nonempty_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

}  // namespace

Db open_read_only(const std::string& path, int extra_flags) {
    Db db;
    try {
        db = Db(path, SQLITE_OPEN_READONLY | extra_flags);
    } catch (const StoreError& e) {
        throw InputError(e.what());
    }
    try {
        Stmt(db, "SELECT count(*) FROM sqlite_master").step();
        return db;
    } catch (const StoreError& e) {
        // A WAL database is read through its -shm file, which SQLite creates (or writes) even
        // for a read-only connection: a 0444 file of another user, a read-only directory or
        // mount refuses that. A finished run (no writer, no write-ahead log left) cannot
        // change, so it is read as immutable: no -shm, no locks.
        if (e.code != SQLITE_READONLY && e.code != SQLITE_CANTOPEN) return db;  // validate_schema names it
        db = Db();  // closed before the probe descriptor (writer_lock.h)
        FileHandle probe = open_for_probe(path);
        if (writer_alive(probe))
            throw InputError(std::string(e.what()) +
                             " (its run is still being written; reading it live needs write access "
                             "to its folder, or wait until the run ends)");
        if (nonempty_file(path + "-wal"))
            throw InputError(std::string(e.what()) + " (its writer died leaving " + path +
                             "-wal, which only a reader with write access can fold in: copy the .db and "
                             "its -wal file to a writable folder and read the copy)");
    }
    try {
        return Db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | extra_flags, file_uri(path, "immutable=1"));
    } catch (const StoreError& e) {
        throw InputError(e.what());
    }
}

namespace {
// The rule for inputs (common/input_file.h) before SQLite or the probe opens it: a FIFO would
// block the probe's open forever, a device feed SQLite without end. Notes it as an input, so no
// output of the command is written over it.
const std::string& checked_input(const std::string& path) {
    check_input_file(path, "run database", std::numeric_limits<uint64_t>::max());
    return path;
}
}  // namespace

StoreReader::StoreReader(const std::string& path) : path_(path), probe_(open_for_probe(checked_input(path))) {
    auto open_ro = [&] {
        db_ = open_read_only(path_);
        version_ = validate_schema(db_);
    };
    open_ro();
    if (!indexes_present(db_, version_) && !writer_alive()) {
        db_ = Db();
        build_missing_indexes(path_);
        open_ro();
    }
}

StoreReader::~StoreReader() {
    db_ = Db();  // close the connection before the probe descriptor (writer_lock.h)
}

StoreReader& StoreReader::operator=(StoreReader&& o) noexcept {
    if (this != &o) {
        db_ = std::move(o.db_);  // the old connection closes before the old probe descriptor
        probe_ = std::move(o.probe_);
        path_ = std::move(o.path_);
    }
    return *this;
}

RunRow StoreReader::run() const {
    Stmt s(db_, std::string("SELECT id, plan_text, plan_path, tool_version, host, started_unix_ns, ended_unix_ns,"
                            " mono_origin_ns, status, max_density, ") +
                    (version_ >= 3 ? "pool_id" : "''") + " FROM runs ORDER BY id LIMIT 1");
    if (!s.step()) throw InputError(path_ + ": no run recorded (its writer stopped before the run began)");
    RunRow r;
    r.id = s.col_int(0);
    r.plan_text = s.col_text(1);
    r.plan_path = s.col_text(2);
    r.tool_version = s.col_text(3);
    r.host = s.col_text(4);
    r.started_unix_ns = s.col_int(5);
    r.ended_unix_ns = s.col_opt_int(6);
    r.mono_origin_ns = s.col_int(7);
    r.status = parse_run_status(s.col_text(8));
    r.max_density = s.col_opt_int(9);
    r.pool_id = s.col_text(10);
    return r;
}

std::vector<HostRow> StoreReader::hosts() const {
    // Version 2 has one host, the writer's own: the defaults of its version-3 columns describe it.
    const char* v3 = "rank AS host_rank, role, clock_offset_ns, clock_uncertainty_ns, status, lost_step, lost_detail, agent";
    const char* v2 = "NULL AS host_rank, 'orchestrator', 0, NULL, 'ok', NULL, NULL, 'local'";
    // cpu_capacity: NULL and '' from files before the columns (all CPUs).
    const bool cap = version_ >= 3 && has_column("hosts", "cpu_capacity");
    Stmt s(db_, std::string("SELECT hostname, cpu_model, cpu_count, mem_total_bytes, os, kernel, gpu, driver,"
                            " vulkan_device, ") + (version_ >= 3 ? v3 : v2) +
                    (cap ? ", cpu_capacity, cpu_capacity_note" : ", NULL, ''") + " FROM hosts ORDER BY host_rank IS NULL, host_rank, hostname");
    std::vector<HostRow> out;
    while (s.step()) {
        HostRow h;
        h.hostname = s.col_text(0);
        h.cpu_model = s.col_text(1);
        h.cpu_count = s.col_int(2);
        h.mem_total_bytes = s.col_int(3);
        h.os = s.col_text(4);
        h.kernel = s.col_text(5);
        h.gpu = s.col_text(6);
        h.driver = s.col_text(7);
        h.vulkan_device = s.col_text(8);
        h.rank = opt_int(s.col_opt_int(9));
        h.role = s.col_text(10);
        h.clock_offset_ns = s.col_int(11);
        h.clock_uncertainty_ns = s.col_opt_int(12);
        h.lost = s.col_text(13) == "lost";
        h.lost_step = opt_int(s.col_opt_int(14));
        h.lost_detail = s.col_opt_text(15);
        h.agent = s.col_text(16);
        if (!s.col_null(17)) h.cpu_capacity = s.col_real(17);
        h.cpu_capacity_note = s.col_text(18);
        out.push_back(std::move(h));
    }
    return out;
}

bool StoreReader::has_column(const char* table, const char* column) const {
    Stmt s(db_, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2");
    s.bind_text(1, table).bind_text(2, column);
    return s.step() && s.col_int(0) > 0;
}

std::vector<ScalingRow> StoreReader::scaling() const {
    std::vector<ScalingRow> out;
    if (!has_column("scaling", "hosts")) return out;
    Stmt s(db_, "SELECT hosts, first_step, last_step, max_sessions, efficiency, complete FROM scaling ORDER BY hosts");
    while (s.step()) {
        ScalingRow r;
        r.hosts = static_cast<int>(s.col_int(0));
        r.first_step = static_cast<int>(s.col_int(1));
        r.last_step = static_cast<int>(s.col_int(2));
        r.max_sessions = s.col_int(3);
        if (!s.col_null(4)) r.efficiency = s.col_real(4);
        r.complete = s.col_int(5) != 0;
        out.push_back(r);
    }
    return out;
}

std::vector<StepRow> StoreReader::steps() const {
    // pool_hosts: files from before the column read NULL (one host).
    Stmt s(db_,
           std::string("SELECT idx, repeat, target_sessions, started_ns, window_start_ns, window_end_ns, ended_ns,"
                       " verdict, detail, ") +
               (has_column("steps", "shortfall") ? "shortfall" : "''") + ", " +
               (has_column("steps", "pool_hosts") ? "pool_hosts" : "NULL") + " FROM steps ORDER BY idx, repeat");
    std::vector<StepRow> out;
    while (s.step()) {
        StepRow r;
        r.idx = static_cast<int>(s.col_int(0));
        r.repeat = static_cast<int>(s.col_int(1));
        r.target_sessions = static_cast<int>(s.col_int(2));
        r.started_ns = s.col_int(3);
        r.window_start_ns = s.col_opt_int(4);
        r.window_end_ns = s.col_opt_int(5);
        r.ended_ns = s.col_opt_int(6);
        r.verdict = s.col_opt_text(7);
        r.detail = s.col_text(8);
        r.shortfall = s.col_text(9);
        if (auto h = s.col_opt_int(10)) r.pool_hosts = static_cast<int>(*h);
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<VerdictRow> StoreReader::verdicts() const { return verdicts_where(std::string()); }

std::vector<VerdictRow> StoreReader::host_verdicts(const std::string& host) const { return verdicts_where(host); }

std::vector<VerdictRow> StoreReader::all_verdicts() const { return verdicts_where(std::nullopt); }

std::vector<VerdictRow> StoreReader::verdicts_where(const std::optional<std::string>& host) const {
    // Version 2 stored the pool's verdicts only (one host: the pool is that host).
    const std::string host_col = version_ >= 3 ? "host" : "''";
    Stmt s(db_,
           "SELECT step_idx, repeat, target_sessions, t0_ns, t1_ns, judged_ns, pass, sessions, failures, frames,"
           " dropped, fps_median, fps_min, fps_max, p95_median_ms, p95_worst_ms, low1_worst_fps,"
           " latency_p95_worst_ms, stutter_worst, fairness, gpu_mem_peak_pct, " + host_col +
           " FROM verdicts WHERE ?1 IS NULL OR " + host_col + " = ?1 ORDER BY " + host_col + ", step_idx, repeat");
    s.bind_opt_text(1, host);
    // NULL is how a NaN figure was stored.
    auto real = [&s](int c) { return s.col_type(c) == SQLITE_NULL ? std::nan("") : s.col_real(c); };
    std::vector<VerdictRow> out;
    while (s.step()) {
        VerdictRow v;
        v.step_idx = static_cast<int>(s.col_int(0));
        v.repeat = static_cast<int>(s.col_int(1));
        v.target_sessions = static_cast<int>(s.col_int(2));
        v.t0_ns = s.col_int(3);
        v.t1_ns = s.col_int(4);
        v.judged_ns = s.col_int(5);
        v.pass = s.col_int(6) != 0;
        v.sessions = s.col_int(7);
        v.failures = s.col_int(8);
        v.frames = s.col_int(9);
        v.dropped = s.col_int(10);
        v.fps_median = real(11);
        v.fps_min = real(12);
        v.fps_max = real(13);
        v.p95_median_ms = real(14);
        v.p95_worst_ms = real(15);
        v.low1_worst_fps = real(16);
        v.latency_p95_worst_ms = real(17);
        v.stutter_worst = real(18);
        v.fairness = real(19);
        v.gpu_mem_peak_pct = real(20);
        v.host = s.col_text(21);
        out.push_back(std::move(v));
    }
    Stmt r(db_, "SELECT step_idx, repeat, reason, " + host_col + " FROM verdict_reasons WHERE ?1 IS NULL OR " +
                    host_col + " = ?1 ORDER BY " + host_col + ", step_idx, repeat, ord");
    r.bind_opt_text(1, host);
    while (r.step()) {
        const int idx = static_cast<int>(r.col_int(0)), rep = static_cast<int>(r.col_int(1));
        const std::string h = r.col_text(3);
        for (auto& v : out)
            if (v.step_idx == idx && v.repeat == rep && v.host == h) {
                v.reasons.push_back(r.col_text(2));
                break;
            }
    }
    return out;
}

std::vector<SessionRow> StoreReader::sessions() const {
    // Version 2: every session ran on the writer's host.
    const char* host_col = version_ >= 3 ? "host" : "(SELECT host FROM runs ORDER BY id LIMIT 1)";
    Stmt s(db_,
           std::string("SELECT id, profile, pid, device_name, device_type, driver_name, driver_info, software,"
                       " started_ns, ended_ns, end_reason, exit_code, signal, frames_sent, frames_received,"
                       " frames_lost, detail, model_open_ms, ") + host_col + " FROM sessions ORDER BY id");
    std::vector<SessionRow> out;
    while (s.step()) {
        SessionRow r;
        r.id = static_cast<int>(s.col_int(0));
        // The id is the table's primary key, so ids ascend strictly; a repeat means a damaged B-tree that
        // hands out the same rows again (fuzz_store: 3 rows read as 1024, each reading its frames again).
        if (!out.empty() && r.id <= out.back().id)
            throw StoreError(path_ + ": reading sessions: session " + std::to_string(r.id) + " comes after session " +
                                 std::to_string(out.back().id) +
                                 ", and ids are unique and ascending: the file is damaged (`sqlite3 " + path_ +
                                 " .recover` may save what is left)",
                             SQLITE_CORRUPT);
        r.profile = s.col_text(1);
        r.pid = s.col_int(2);
        r.device.device_name = s.col_text(3);
        r.device.device_type = s.col_text(4);
        r.device.driver_name = s.col_text(5);
        r.device.driver_info = s.col_text(6);
        r.device.software = s.col_int(7) != 0;
        r.started_ns = s.col_int(8);
        r.ended_ns = s.col_opt_int(9);
        r.end_reason = parse_session_end(s.col_text(10));
        r.exit_code = s.col_opt_int(11);
        r.signal = s.col_opt_int(12);
        r.frames_sent = s.col_opt_int(13);
        r.frames_received = s.col_int(14);
        r.frames_lost = s.col_int(15);
        r.detail = s.col_text(16);
        if (!s.col_null(17)) r.model_open_ms = s.col_real(17);
        r.host = s.col_text(18);
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<FrameRecord> StoreReader::frames(int session_id) const {
    if (version_ >= first_block_version) return block_frames(session_id, nullptr);
    Stmt s(db_, std::string("SELECT ") + frame_row_columns + " FROM frames WHERE session_id = ?1 ORDER BY seq",
           "reading frames");
    s.bind_int(1, session_id);
    std::vector<FrameRecord> out;
    while (s.step()) out.push_back(frame_row(s));
    return out;
}

std::vector<FrameRecord> StoreReader::frames_in(int session_id, int64_t t0, int64_t t1) const {
    if (version_ >= first_block_version) {
        const int64_t range[2] = {t0, t1};
        return block_frames(session_id, range);
    }
    Stmt s(db_, std::string("SELECT ") + frame_row_columns +
                    " FROM frames WHERE session_id = ?1 AND t_begin_ns >= ?2 AND t_begin_ns < ?3 ORDER BY seq",
           "reading frames");
    s.bind_int(1, session_id).bind_int(2, t0).bind_int(3, t1);
    std::vector<FrameRecord> out;
    while (s.step()) out.push_back(frame_row(s));
    return out;
}

// Schema 4: the session's blocks decoded here, as the report's scan does, rather than row by row
// through the `frames` virtual table and SQLite's sorter (~2.4 us a frame: a 30-minute window of
// 256 sessions took the judge 77 s). The same rows and order: t_begin in [t0, t1) when `range`
// is given, by seq (blocks come in time order; a block out of order is sorted, not trusted).
std::vector<FrameRecord> StoreReader::block_frames(int session_id, const int64_t* range) const {
    Stmt s(db_,
           range ? "SELECT rowid, frames, records FROM frame_blocks WHERE session_id = ?1 AND t_begin_max_ns >= ?2"
                   " AND t_begin_min_ns < ?3 ORDER BY session_id, t_begin_max_ns"
                 : "SELECT rowid, frames, records FROM frame_blocks WHERE session_id = ?1 ORDER BY session_id, t_begin_max_ns",
           "reading frames");
    s.bind_int(1, session_id);
    if (range) s.bind_int(2, range[0]).bind_int(3, range[1]);
    std::vector<FrameRecord> out;
    while (s.step()) {
        const int64_t n = s.col_int(1);
        std::string bad;
        const unsigned char* blob = checked_block(s.get(), 2, s.col_int(0), session_id, n, bad);
        if (!blob) throw StoreError(path_ + ": reading frames: " + bad, SQLITE_CORRUPT);
        for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
            FrameRecord f = decode_frame(blob, i);
            if (!range || (f.t_begin_ns >= range[0] && f.t_begin_ns < range[1])) out.push_back(f);
        }
    }
    auto by_seq = [](const FrameRecord& a, const FrameRecord& b) { return a.seq < b.seq; };
    if (!std::is_sorted(out.begin(), out.end(), by_seq)) std::stable_sort(out.begin(), out.end(), by_seq);
    return out;
}

// Schema 4 counts a block's frames from its row, without decoding it.
uint64_t StoreReader::frame_count() const {
    Stmt s(db_, version_ >= first_block_version ? "SELECT coalesce(sum(frames), 0) FROM frame_blocks" : "SELECT count(*) FROM frames");
    return s.step() ? static_cast<uint64_t>(s.col_int(0)) : 0;
}

uint64_t StoreReader::frame_count(int session_id) const {
    Stmt s(db_, version_ >= first_block_version ? "SELECT coalesce(sum(frames), 0) FROM frame_blocks WHERE session_id = ?1"
                                                : "SELECT count(*) FROM frames WHERE session_id = ?1");
    s.bind_int(1, session_id);
    return s.step() ? static_cast<uint64_t>(s.col_int(0)) : 0;
}

std::vector<SampleRow> StoreReader::samples(const SampleQuery& q) const {
    const std::string host_col = version_ >= 3 ? "host" : "''";
    Stmt s(db_,
           "SELECT t_ns, session_id, source, metric, value, " + host_col + " FROM samples"
           " WHERE (?1 = '' OR metric = ?1) AND (?2 = '' OR source = ?2)"
           " AND (?3 IS NULL OR session_id = ?3) AND (?4 = 0 OR session_id IS NULL)"
           " AND t_ns >= ?5 AND t_ns < ?6 AND (?7 IS NULL OR " + host_col + " = ?7) ORDER BY t_ns, rowid");
    s.bind_text(1, q.metric).bind_text(2, q.source);
    if (q.session_id) s.bind_int(3, *q.session_id);
    else s.bind_null(3);
    s.bind_int(4, q.host_wide ? 1 : 0).bind_int(5, q.t0).bind_int(6, q.t1).bind_opt_text(7, q.host);
    std::vector<SampleRow> out;
    while (s.step()) {
        SampleRow r;
        r.t_ns = s.col_int(0);
        r.session_id = opt_int(s.col_opt_int(1));
        r.source = s.col_text(2);
        r.metric = s.col_text(3);
        r.value = s.col_real(4);
        r.host = s.col_text(5);
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<EventRow> StoreReader::events() const {
    Stmt s(db_, std::string("SELECT t_ns, session_id, kind, detail, ") + (version_ >= 3 ? "host" : "''") +
                    " FROM events ORDER BY t_ns, rowid");
    std::vector<EventRow> out;
    while (s.step()) {
        EventRow r;
        r.t_ns = s.col_int(0);
        r.session_id = opt_int(s.col_opt_int(1));
        r.kind = s.col_text(2);
        r.detail = s.col_text(3);
        r.host = s.col_text(4);
        out.push_back(std::move(r));
    }
    return out;
}

bool StoreReader::writer_alive() const { return store::writer_alive(probe_); }

RunStatus StoreReader::effective_status() const {
    Stmt s(db_, "SELECT status FROM runs ORDER BY id LIMIT 1");
    RunStatus stored = s.step() ? parse_run_status(s.col_text(0)) : RunStatus::running;
    if (stored != RunStatus::running) return stored;
    return writer_alive() ? RunStatus::running : RunStatus::crashed;
}

std::vector<std::string> StoreReader::integrity_check() const {
    Stmt s(db_, "PRAGMA integrity_check", "checking integrity");
    std::vector<std::string> out;
    while (s.step()) out.push_back(s.col_text(0));
    return out;
}

bool StoreReader::integrity_ok() const {
    try {
        std::vector<std::string> r = integrity_check();
        return r.size() == 1 && r[0] == "ok";
    } catch (const StoreError&) {
        return false;  // e.g. SQLITE_CORRUPT before any row
    }
}

std::string describe(RunStatus s) {
    switch (s) {
        case RunStatus::running: return "running";
        case RunStatus::finished: return "finished";
        case RunStatus::aborted: return "aborted";
        case RunStatus::crashed: return "did not finish (crashed)";
        case RunStatus::degraded: return "degraded (a host was lost)";
    }
    return "?";
}

}  // namespace seatmark::store
