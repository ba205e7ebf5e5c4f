#include "store/schema.h"

#include <array>
#include <cstdio>
#include <set>

#include "common/errors.h"

namespace seatmark::store {

// SQLite keeps the text of each CREATE TABLE, comments included, so `sqlite3 run.db .schema`
// shows this documentation too.
const char* const schema_sql = R"sql(
-- seatmark run database, schema version 4 (PRAGMA user_version = 4, application_id = 0x53454154 'SEAT').
-- One file per run, written by `seatmark run` (one per host in a pool run; `seatmark merge`
-- joins them), read by report, check and monitor. Every row is keyed by host: a single-host run
-- is a pool of one.
-- Times: *_unix_ns are wall-clock ns since the Unix epoch (CLOCK_REALTIME). Every other *_ns
-- column that is a point in time is in one time base per file: CLOCK_MONOTONIC ns of the host
-- that wrote the file (common/clock.h), the clock sessions stamp frames with; other hosts'
-- stamps are converted into it with hosts.clock_offset_ns. runs.mono_origin_ns relates the two:
--   unix_ns ~= runs.started_unix_ns + (t_ns - runs.mono_origin_ns).
-- REFERENCES clauses document relations; they are not enforced (foreign_keys is off) to keep
-- ingest fast. Indexes are created when the run finishes (see index_sql), not during it; only
-- frame_blocks' one index is made with its table (one entry per block).

CREATE TABLE runs (
  id              INTEGER PRIMARY KEY,  -- 1: one run per file
  plan_text       TEXT NOT NULL,        -- the run plan (TOML) exactly as read
  plan_path       TEXT NOT NULL,        -- where the plan was read from ('' when built in)
  tool_version    TEXT NOT NULL,        -- seatmark version that wrote the file
  host            TEXT NOT NULL,        -- hostname of the orchestrator that wrote the file
  started_unix_ns INTEGER NOT NULL,     -- wall clock when the run started
  ended_unix_ns   INTEGER,              -- wall clock when the run ended; NULL until then
  mono_origin_ns  INTEGER NOT NULL,     -- CLOCK_MONOTONIC at the same instant as started_unix_ns
  status          TEXT NOT NULL DEFAULT 'running'
                  CHECK (status IN ('running','finished','aborted','crashed','degraded')),
                  -- 'running' until the run ends. A file whose writer died keeps 'running';
                  -- readers report such a run as crashed (did not finish). 'degraded': a pool
                  -- run that lost a host (hosts.status); the survivors' data is complete.
  max_density     INTEGER,              -- sessions: the last step such that it and every step below
                                        -- passed (0: none); NULL until the run ended
  pool_id         TEXT NOT NULL DEFAULT ''  -- a pool run's id, the same in every host's database of
                                        -- one MPI run (merge refuses to mix runs); '' for a single host
) STRICT;

CREATE TABLE hosts (
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  hostname        TEXT NOT NULL,
  cpu_model       TEXT NOT NULL,        -- e.g. /proc/cpuinfo "model name"
  cpu_count       INTEGER NOT NULL,     -- online logical CPUs
  mem_total_bytes INTEGER NOT NULL,     -- physical memory
  os              TEXT NOT NULL,        -- e.g. PRETTY_NAME of /etc/os-release
  kernel          TEXT NOT NULL,        -- uname -r
  gpu             TEXT NOT NULL,        -- GPU model ('' when none)
  driver          TEXT NOT NULL,        -- GPU driver name and version ('' when none)
  vulkan_device   TEXT NOT NULL,        -- the Vulkan device sessions were asked to use
  rank            INTEGER,              -- MPI rank in a pool run; NULL outside MPI
  role            TEXT NOT NULL DEFAULT 'orchestrator'
                  CHECK (role IN ('orchestrator','rank','joined')),
                  -- 'orchestrator': wrote the file (single host, or MPI rank 0); 'rank': another
                  -- MPI rank's orchestrator; 'joined': sessions that joined over TCP from it
  clock_offset_ns INTEGER NOT NULL DEFAULT 0,  -- added to this host's monotonic stamps to put them
                                        -- in this file's time base (0 for the writer itself)
  clock_uncertainty_ns INTEGER,         -- +- bound of that offset (half the best round trip); NULL: same clock
  status          TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok','lost')),
  lost_step       INTEGER,              -- steps.idx during which the host was lost; NULL when ok
  lost_detail     TEXT,                 -- how it was lost (e.g. 'no answer within 30 s at window open')
  agent           TEXT NOT NULL DEFAULT 'local',  -- how host figures were sampled: 'local', 'agent',
                                        -- or 'none: <reason>'
  cpu_capacity    REAL,                 -- CPUs the run may really use when fewer than cpu_count (a
                                        -- cpuset or CFS quota); NULL: all of cpu_count (or files
                                        -- before the column). samples.host_cpu_pct is a share of it
  cpu_capacity_note TEXT NOT NULL DEFAULT '',  -- where it came from: '1 CPU: cpuset 0 of 2 online'
  PRIMARY KEY (run_id, hostname)
) STRICT;

CREATE TABLE steps (
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  idx             INTEGER NOT NULL,     -- step number from 0, in ramp order
  repeat          INTEGER NOT NULL,     -- measurement window repeat within the step, from 0
  target_sessions INTEGER NOT NULL,     -- sessions the step runs with
  started_ns      INTEGER NOT NULL,     -- the step began (sessions being added)
  window_start_ns INTEGER,              -- measured window [window_start_ns, window_end_ns),
  window_end_ns   INTEGER,              --   after the settle time; NULL until the step ended
  ended_ns        INTEGER,              -- the step ended; NULL until then
  verdict         TEXT,                 -- 'pass' or 'fail' against the plan's service level; NULL: not judged
  detail          TEXT NOT NULL DEFAULT '',  -- why, e.g. the first service-level clause that failed
  shortfall       TEXT NOT NULL DEFAULT '',  -- join mode: why the step could not get its sessions
                                        -- ("27 of 30 sessions joined within 5 min"): its first reason
  pool_hosts      INTEGER,              -- a pool run: hosts taking part in the step (a [scaling] series
                                        -- runs the ramp on the first 1, 2, ... ranks); NULL: one host
  PRIMARY KEY (run_id, idx, repeat)
) STRICT;

-- A pool run's scaling: one row per pool size the ramp ran on ([scaling] hosts, or the whole pool),
-- written by the merge from the pool's step verdicts. E(H) = max_sessions on H hosts /
-- (H x max_sessions on 1 host), core::scaling_efficiency.
CREATE TABLE scaling (
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  hosts           INTEGER NOT NULL,     -- the pool size (steps.pool_hosts)
  first_step      INTEGER NOT NULL,     -- steps.idx of the first and last step of its ramp
  last_step       INTEGER NOT NULL,
  max_sessions    INTEGER NOT NULL,     -- max passing sessions of the pool on it (core::max_density)
  efficiency      REAL,                 -- E(H); NULL without a 1-host ramp that passed a step
  complete        INTEGER NOT NULL,     -- 1: every host of it completed each of its steps (none lost)
  PRIMARY KEY (run_id, hosts)
) STRICT;

-- Steps are run-wide: in a pool run windows open and close at the same instant on every host.
-- The verdicts as the orchestrator judged them (core/step_rules.h), written when judged: one
-- row per measurement window (repeat >= 0, the window of steps(idx, repeat)) and one per step
-- pooled over all its windows (repeat = -1), for the pool (host = '') and, in a pool run, for
-- each host's own sessions (host = hosts.hostname). `seatmark report` recomputes them from the
-- frames with the same rules and says where they differ. Figures are over the judged sessions.
CREATE TABLE verdicts (
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  host            TEXT NOT NULL DEFAULT '',  -- '': the pool (the whole run); a hostname: that host's own verdict
  step_idx        INTEGER NOT NULL,     -- steps.idx
  repeat          INTEGER NOT NULL,     -- steps.repeat of the window; -1: the step pooled over its windows
  target_sessions INTEGER NOT NULL,
  t0_ns           INTEGER NOT NULL,     -- judged frames began in [t0_ns, t1_ns);
  t1_ns           INTEGER NOT NULL,     --   who is judged is decided at t1_ns
  judged_ns       INTEGER NOT NULL,     -- when the orchestrator judged it
  pass            INTEGER NOT NULL CHECK (pass IN (0,1)),
  sessions        INTEGER NOT NULL,     -- sessions judged (running at t1, or failed in the step before t1)
  failures        INTEGER NOT NULL,     -- of them, failed
  frames          INTEGER NOT NULL,
  dropped         INTEGER NOT NULL,     -- sequence gaps in the judged frames
  fps_median      REAL,                 -- over sessions' FPS (frames / active time); 0 when no frames
  fps_min         REAL,
  fps_max         REAL,
  p95_median_ms   REAL,                 -- over sessions' p95 frame interval; NULL when none had one
  p95_worst_ms    REAL,
  low1_worst_fps  REAL,
  latency_p95_worst_ms REAL,
  stutter_worst   REAL,                 -- share 0..1
  fairness        REAL,                 -- Jain's index over sessions' FPS
  gpu_mem_peak_pct REAL,                -- highest GPU memory use (the SLA's bound); -1: not checked
  PRIMARY KEY (run_id, host, step_idx, repeat)
) STRICT;

CREATE TABLE verdict_reasons (
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  host            TEXT NOT NULL DEFAULT '',  -- verdicts(host, step_idx, repeat)
  step_idx        INTEGER NOT NULL,
  repeat          INTEGER NOT NULL,
  ord             INTEGER NOT NULL,     -- 0: the most telling reason
  reason          TEXT NOT NULL,        -- e.g. 'session 3: p95 45.0 ms > 33.3 ms'
  PRIMARY KEY (run_id, host, step_idx, repeat, ord)
) STRICT;

CREATE TABLE sessions (
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  id              INTEGER PRIMARY KEY,  -- session number within the run (unique over the pool)
  host            TEXT NOT NULL,        -- hosts.hostname of the host the session ran on
  profile         TEXT NOT NULL,        -- workload profile name
  pid             INTEGER NOT NULL,     -- process id of `seatmark session`
  device_name     TEXT NOT NULL DEFAULT '',  -- Vulkan device the session really got
  device_type     TEXT NOT NULL DEFAULT '',  -- 'discrete-gpu', 'integrated-gpu', 'virtual-gpu', 'cpu', 'other'
  driver_name     TEXT NOT NULL DEFAULT '',  -- VkPhysicalDeviceDriverProperties::driverName
  driver_info     TEXT NOT NULL DEFAULT '',  -- VkPhysicalDeviceDriverProperties::driverInfo
  software        INTEGER NOT NULL DEFAULT 0 CHECK (software IN (0,1)),  -- 1: a software renderer
  started_ns      INTEGER NOT NULL,     -- process started
  ended_ns        INTEGER,              -- it stopped running: declared failed (hang, protocol, device
                                        -- lost, ...) or exited, whichever came first; NULL while it runs
  end_reason      TEXT NOT NULL DEFAULT 'running'
                  CHECK (end_reason IN ('running','ok','crash','hang','device-lost',
                                        'software-fallback','killed','error','protocol',
                                        'disconnected')),
  exit_code       INTEGER,              -- exit status when it exited, else NULL
  signal          INTEGER,              -- terminating signal when killed by one, else NULL
  frames_sent     INTEGER,              -- frame count from the session's BYE; NULL without one
  frames_received INTEGER NOT NULL DEFAULT 0,  -- frames the orchestrator received
  frames_lost     INTEGER NOT NULL DEFAULT 0,  -- gaps in the per-session sequence number
  model_open_ms   REAL,                 -- model open time: session start -> first frame showing its scene; NULL without BYE
  detail          TEXT NOT NULL DEFAULT ''     -- free text: the error message, the last event
) STRICT;

-- Frames, in blocks: one row per session message (at most 4096 frames), its records packed in
-- `records` (store/frame_block.h, docs/store.md "Frame blocks": an 8-byte header, then 72-byte
-- little-endian records). One row per frame cost the orchestrator's writer most of its CPU.
-- Schema 3 and older have a `frames` table with a row per frame instead; seatmark's own
-- connections read both as `frames` (store/frames_table.h); `seatmark export frames` prints them.
-- Its one index is made with the table, not at the end as the others: at one row per session
-- message it costs ingest nothing, and the orchestrator's judge reads a window of one session's
-- frames during the run (blocks with t_begin_max_ns >= the window's start).
CREATE TABLE frame_blocks (
  session_id      INTEGER NOT NULL REFERENCES sessions(id),
  first_seq       INTEGER NOT NULL,     -- lowest frame sequence number in the block
  last_seq        INTEGER NOT NULL,     -- highest
  frames          INTEGER NOT NULL,     -- records in the block (the header's count)
  t_begin_min_ns  INTEGER NOT NULL,     -- earliest frame begin in the block (monotonic): for range queries
  t_begin_max_ns  INTEGER NOT NULL,     -- latest
  records         BLOB NOT NULL         -- the packed records, format 1
) STRICT;
CREATE INDEX frame_blocks_by_session ON frame_blocks(session_id, t_begin_max_ns);

CREATE TABLE samples (
  t_ns            INTEGER NOT NULL,     -- when the sample was taken (monotonic)
  host            TEXT NOT NULL DEFAULT '',  -- hosts.hostname it was taken on; '': the file writer's own host
  session_id      INTEGER REFERENCES sessions(id),  -- NULL: host-wide
  source          TEXT NOT NULL,        -- 'proc', 'nvml', 'drm', 'software', ...
  metric          TEXT NOT NULL,        -- e.g. 'gpu_util', 'gpu_mem_bytes', 'cpu_ns'
  value           REAL NOT NULL
) STRICT;

CREATE TABLE events (
  t_ns            INTEGER NOT NULL,     -- monotonic
  host            TEXT NOT NULL DEFAULT '',  -- hosts.hostname it happened on; '': the file writer's own host / run-wide
  session_id      INTEGER REFERENCES sessions(id),  -- NULL: run-wide
  kind            TEXT NOT NULL,        -- e.g. 'step-begin', 'session-crash', 'sampler-error'
  detail          TEXT NOT NULL DEFAULT ''
) STRICT;

-- Endpoint measurement: what the remote user saw (`seatmark launch` joined to the run; the
-- definitions are core/endpoint.h's). Files written before these tables existed (version 2,
-- early version 3) read as having no launched sessions. One row per RDP logon a launcher
-- opened, whether or not a session ever joined through it.
CREATE TABLE endpoint_logons (
  id              INTEGER PRIMARY KEY,  -- logon number within the run
  launcher        TEXT NOT NULL,        -- the launcher that opened it (its host name, '#N' when several share one)
  rdp_host        TEXT NOT NULL,        -- HOST:PORT of the RDP server
  host            TEXT NOT NULL,        -- hosts.hostname the logon's session joined from (as the launcher names it until then)
  user            TEXT NOT NULL,        -- the test user
  session_id      INTEGER REFERENCES sessions(id),  -- the joined session it carries; NULL: none joined
  connect_ns      INTEGER NOT NULL,     -- connect asked (launcher's clock, converted)
  logon_ms        REAL,                 -- connect -> the session's HELLO (the logon storm); NULL: never got there
  ended_ns        INTEGER,              -- the logon ended; NULL while it lasts
  fault           TEXT NOT NULL DEFAULT 'none',  -- none | refused | tls | logon | protocol | cut | logged-off
                                        -- (the desktop ended without the run asking) | timeout | launcher-lost
  fault_detail    TEXT NOT NULL DEFAULT '',      -- the message behind the fault
  codec           TEXT NOT NULL DEFAULT 'none',  -- codec that carried most bytes: remotefx | nscodec | surface-raw | bitmap
  payload_bytes   INTEGER NOT NULL DEFAULT 0,    -- codec payload received
  bytes_per_s     REAL,
  paints          INTEGER NOT NULL DEFAULT 0,    -- screen updates painted
  unreadable      INTEGER NOT NULL DEFAULT 0,    -- of them, over the watermark but not decodable
  -- the session's endpoint figures over its whole life, written when the logon ended (NULL: nothing measured)
  rendered        INTEGER NOT NULL DEFAULT 0,    -- frames the session rendered
  arrivals        INTEGER NOT NULL DEFAULT 0,    -- of them, seen at the client
  fps             REAL,                 -- arrivals per second
  delivered_ratio REAL,                 -- arrivals / rendered
  interval_p50_ms REAL,                 -- arrival-to-arrival
  interval_p95_ms REAL,
  interval_p99_ms REAL,
  latency_p50_ms  REAL,                 -- present (session) -> arrival (client)
  latency_p95_ms  REAL,
  ssim_samples    INTEGER NOT NULL DEFAULT 0,
  ssim_mean       REAL,
  ssim_min        REAL
) STRICT;

-- Each rendered frame the client saw: the watermark's number (frames.seq) and when the paint that
-- completed it arrived, in this file's time base.
CREATE TABLE endpoint_arrivals (
  session_id      INTEGER NOT NULL REFERENCES sessions(id),
  seq             INTEGER NOT NULL,     -- frames.seq of the frame
  arrival_ns      INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

-- Sampled image quality: SSIM of a received frame against the session's rendering of the same number.
CREATE TABLE endpoint_ssim (
  session_id      INTEGER NOT NULL REFERENCES sessions(id),
  seq             INTEGER NOT NULL,     -- frames.seq
  ssim            REAL NOT NULL         -- 0..1
) STRICT;
)sql";

namespace {

// Schema 3 and older store frames as rows (`frames`), schema 4 in blocks (`frame_blocks`).
bool blocks(int version) { return version >= 4; }

constexpr const char* index_sql_v3 = R"sql(
CREATE INDEX IF NOT EXISTS frames_by_session ON frames(session_id, seq);
CREATE INDEX IF NOT EXISTS samples_by_metric ON samples(metric, session_id, t_ns);
CREATE INDEX IF NOT EXISTS events_by_time ON events(t_ns);
)sql";

constexpr const char* index_sql_v4 = R"sql(
CREATE INDEX IF NOT EXISTS frame_blocks_by_session ON frame_blocks(session_id, t_begin_max_ns);
CREATE INDEX IF NOT EXISTS samples_by_metric ON samples(metric, session_id, t_ns);
CREATE INDEX IF NOT EXISTS events_by_time ON events(t_ns);
)sql";

constexpr std::array<std::string_view, 9> tables_v3{"runs",   "hosts",   "steps",  "sessions", "frames",
                                                    "samples", "events", "verdicts", "verdict_reasons"};
constexpr std::array<std::string_view, 9> tables_v4{"runs",   "hosts",   "steps",  "sessions", "frame_blocks",
                                                    "samples", "events", "verdicts", "verdict_reasons"};
constexpr std::array<std::string_view, 3> indexes_v3{"frames_by_session", "samples_by_metric", "events_by_time"};
constexpr std::array<std::string_view, 3> indexes_v4{"frame_blocks_by_session", "samples_by_metric",
                                                     "events_by_time"};

std::set<std::string> names_of(const Db& db, const char* type) {
    Stmt s(db, "SELECT name FROM sqlite_schema WHERE type = ?1");
    s.bind_text(1, type);
    std::set<std::string> names;
    while (s.step()) names.insert(s.col_text(0));
    return names;
}

}  // namespace

const char* index_sql(int version) { return blocks(version) ? index_sql_v4 : index_sql_v3; }

std::span<const std::string_view> table_names(int version) {
    if (blocks(version)) return tables_v4;
    return tables_v3;
}

void configure_writer(const Db& db) {
    // WAL: readers (monitor, report) never block the writer and a killed writer leaves a
    // consistent file. synchronous=NORMAL: a commit is durable against a process crash at once
    // and against power loss after the next checkpoint, without an fsync per commit.
    // 16 KiB pages, set before WAL mode (it cannot change after): a session's message is one
    // frame block of ~4.3 KB (60 frames), which on 4 KiB pages spills into an overflow page, and
    // SQLite writes each WAL page with two system calls (frame header, page). 16 KiB keeps a
    // block in its leaf and, with the writer committing once a second, took the run's pwrite
    // calls from ~970 to ~240 a second with 256 sessions (bench_orchestrator); larger pages would
    // rewrite more of the last, partly filled leaf at every commit. Readers take the page size
    // from the file.
    db.exec("PRAGMA page_size=16384", "setting the page size");
    Stmt wal(db, "PRAGMA journal_mode=WAL", "setting WAL mode");
    if (!wal.step() || wal.col_text(0) != "wal")
        throw StoreError(db.path() + ": setting WAL mode: the file system does not support it", SQLITE_ERROR);
    db.exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF; PRAGMA temp_store=MEMORY;",
            "configuring the connection");
}

void create_schema(const Db& db) {
    db.exec("BEGIN", "creating the schema");
    db.exec(schema_sql, "creating the schema");
    char pragmas[96];
    std::snprintf(pragmas, sizeof pragmas, "PRAGMA user_version=%d; PRAGMA application_id=%d;",
                  schema_version, application_id);
    db.exec(pragmas, "creating the schema");
    db.exec("COMMIT", "creating the schema");
}

int validate_schema(const Db& db) {
    const std::string& path = db.path();
    std::set<std::string> present;
    try {
        present = names_of(db, "table");
    } catch (const StoreError& e) {
        if (e.code == SQLITE_NOTADB)
            throw InputError(path + ": not an SQLite database (expected a seatmark run database)");
        if (e.code == SQLITE_CORRUPT)
            throw InputError(path + ": damaged or truncated (database disk image is malformed); "
                                    "expected a complete seatmark run database");
        throw;
    }
    if (!present.count("runs"))
        throw InputError(path + ": not a seatmark run database (no 'runs' table)");
    int64_t app = db.pragma_int("application_id");
    if (app != application_id) {
        char buf[160];
        std::snprintf(buf, sizeof buf, ": not a seatmark run database (application_id 0x%08llx, expected 0x%08x)",
                      static_cast<unsigned long long>(app), static_cast<unsigned>(application_id));
        throw InputError(path + buf);
    }
    int64_t version = db.pragma_int("user_version");
    if (version > schema_version)
        throw InputError(path + ": schema version " + std::to_string(version) + " was written by a newer seatmark; "
                         "this one reads schema " + std::to_string(schema_version) +
                         ": read it with the seatmark that wrote it (runs.tool_version) or a newer one");
    if (version < oldest_readable_version)
        throw InputError(path + ": schema version " + std::to_string(version) + " was written by an older seatmark; "
                         "this one reads schema " + std::to_string(oldest_readable_version) + " to " +
                         std::to_string(schema_version) + " (verdicts stored as rows): read it with the seatmark that wrote it, or run the plan again");
    for (std::string_view t : table_names(static_cast<int>(version)))
        if (!present.count(std::string(t)))
            throw InputError(path + ": not a seatmark run database (no '" + std::string(t) + "' table)");
    return static_cast<int>(version);
}

bool indexes_present(const Db& db, int version) {
    std::set<std::string> present = names_of(db, "index");
    for (std::string_view i : blocks(version) ? std::span<const std::string_view>(indexes_v4)
                                              : std::span<const std::string_view>(indexes_v3))
        if (!present.count(std::string(i))) return false;
    return true;
}

}  // namespace seatmark::store
