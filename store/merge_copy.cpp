#include "store/merge_copy.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>

#include "common/errors.h"
#include "core/pool_rules.h"
#include "core/step_rules.h"
#include "core/verdict.h"
#include "store/frame_block.h"
#include "store/frame_row.h"
#include "store/schema.h"
#include "store/store_reader.h"
#include "store/verdict_row.h"

namespace seatmark::store {

MergeSource load_source(const std::string& path) {
    StoreReader r(path);
    MergeSource s;
    s.path = path;
    s.version = r.schema_version();
    s.run = r.run();
    s.status = r.effective_status();
    s.hosts = r.hosts();
    s.own.hostname = s.run.host;
    for (const HostRow& h : s.hosts)
        if (h.hostname == s.run.host) s.own = h;
    for (const SessionRow& x : r.sessions()) s.session_ids.push_back(x.id);
    s.verdicts = r.all_verdicts();
    // The step its run was in at the end: steps rows appear when a window opens, so a run that
    // ended while its step was starting is found by the step's begin event.
    for (const StepRow& st : r.steps()) s.last_step = std::max(s.last_step.value_or(st.idx), st.idx);
    int begun = 0;
    auto stamp = [&s](int64_t t) {
        s.first_stamp_ns = std::min(s.first_stamp_ns.value_or(t), t);
        s.last_stamp_ns = std::max(s.last_stamp_ns.value_or(t), t);
    };
    for (const EventRow& e : r.events()) {
        begun += e.kind == "step-begin";
        stamp(e.t_ns);
    }
    if (begun > 0) s.last_step = std::max(s.last_step.value_or(0), begun - 1);
    // Where a killed rank's file ends: its host sampler writes twice a second to the end.
    {
        Db d = open_read_only(path);
        Stmt q(d, "SELECT min(t_ns), max(t_ns) FROM samples", "reading the samples' time span");
        if (q.step() && !q.col_null(0)) {
            stamp(q.col_int(0));
            stamp(q.col_int(1));
        }
    }
    return s;
}

namespace {

void remove_db_files(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((path + suffix).c_str());
}

// The merge is written beside its output and renamed at the end, so a merge killed half-way
// leaves no file under the final name (a reader would take it for a whole run). A partial file
// whose writer is gone is a killed merge's: removed. One whose writer lives is refused.
FileHandle create_partial(const std::string& out, const std::string& partial) {
    if (::access(out.c_str(), F_OK) == 0) throw InputError(out + " exists; choose another output or pass --force");
    if (::access(partial.c_str(), F_OK) == 0) {
        FileHandle probe = open_for_probe(partial);
        if (writer_alive(probe))
            throw InputError(partial + " is being written by a running seatmark merge; wait for it or choose another output");
        probe.close();
        remove_db_files(partial);
    }
    return create_locked(partial);
}

}  // namespace

MergeWriter::MergeWriter(const std::string& out)
    : out_(out), partial_(out + ".partial"), lock_(create_partial(out_, partial_)) {
    try {
        db_ = Db(partial_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI);
        configure_writer(db_);
        create_schema(db_);
        st_.emplace(db_);
    } catch (...) {
        st_.reset();
        db_ = Db();
        lock_.close();
        remove_db_files(partial_);
        throw;
    }
}

MergeWriter::~MergeWriter() {
    if (committed_) return;
    st_.reset();
    db_ = Db();
    lock_.close();
    remove_db_files(partial_);
}

void MergeWriter::add_host(const HostRow& h) {
    st_->begin();
    st_->apply(cmd::AddHost{h});
    st_->commit();
}

void MergeWriter::exec_counted(const std::string& sql, int64_t off, int64_t shift, const std::string& host,
                               int64_t* count) {
    Stmt q(db_, sql, "copying rows");
    // Parameters by name so each statement uses only those it needs.
    if (int i = sqlite3_bind_parameter_index(q.get(), ":off")) q.bind_int(i, off);
    if (int i = sqlite3_bind_parameter_index(q.get(), ":shift")) q.bind_int(i, shift);
    if (int i = sqlite3_bind_parameter_index(q.get(), ":host")) q.bind_text(i, host);
    q.run();
    if (count) *count += sqlite3_changes64(db_.get());
}

// Frames are read through the input's own connection (`frames` of store/frames_table.h reads
// schema 3's rows and schema 4's blocks alike; an attached file has no such table) and written
// as the run's writer writes them: one block per run of one session's frames.
void MergeWriter::copy_frames(const std::string& path, int64_t off, int64_t shift, int64_t* count) {
    Db src = open_read_only(path);
    Stmt q(src,
           std::string("SELECT session_id, ") + frame_row_columns + " FROM frames ORDER BY rowid",
           "reading frames");
    cmd::AddFrames block{-1, {}};
    auto put = [&] {
        if (!block.frames.empty()) st_->add_frames({&block});
        *count += static_cast<int64_t>(block.frames.size());
        block.frames.clear();
    };
    while (q.step()) {
        const int64_t session = q.col_int(0) + shift;
        if (session != block.session_id || block.frames.size() >= frame_block_max_frames) {
            put();
            block.session_id = static_cast<int>(session);
        }
        FrameRecord f = frame_row(q, 1);
        // Moved into this file's time base; 0 in t_present_ns means not stamped (files from before it).
        if (__builtin_add_overflow(f.t_begin_ns, off, &f.t_begin_ns) ||
            (f.t_present_ns != 0 && __builtin_add_overflow(f.t_present_ns, off, &f.t_present_ns)))
            throw InputError(path + ": frame " + std::to_string(f.seq) + " of session " + std::to_string(q.col_int(0)) +
                             ": its time stamps overflow when moved by the host's clock offset: the file is damaged");
        block.frames.push_back(f);
    }
    put();
}

void MergeWriter::copy_rows(const MergeSource& s, MergedHost& m) {
    {
        Stmt attach(db_, "ATTACH DATABASE ?1 AS src", "opening an input");
        attach.bind_text(1, file_uri(s.path, "mode=ro")).run();
    }
    const bool v3 = s.version >= 3;
    // '' in a host column means the file writer's own host: the input's runs.host.
    const std::string host = v3 ? "CASE WHEN host = '' THEN :host ELSE host END" : ":host";
    const int64_t off = s.offset_ns, shift = s.session_shift;
    st_->begin();
    // Steps are run-wide; their target is the pool's: each host ran its share of it.
    if (copied_any_) {
        exec_counted("UPDATE main.steps SET target_sessions = target_sessions + coalesce((SELECT h.target_sessions FROM"
                     " src.steps h WHERE h.idx = main.steps.idx AND h.repeat = main.steps.repeat), 0)",
                     off, shift, s.run.host, nullptr);
    }
    // pool_hosts and shortfall: NULL and '' from files before the columns (one host, no shortfall).
    auto src_has = [this](const char* column) {
        Stmt c(db_, std::string("SELECT count(*) FROM pragma_table_info('steps', 'src') WHERE name = '") + column + "'");
        return c.step() && c.col_int(0) > 0;
    };
    const bool has_pool_hosts = src_has("pool_hosts"), has_shortfall = src_has("shortfall");
    exec_counted(
        std::string("INSERT OR IGNORE INTO main.steps(run_id, idx, repeat, target_sessions, started_ns, window_start_ns,"
                    " window_end_ns, ended_ns, verdict, detail, shortfall, pool_hosts) SELECT run_id, idx, repeat,"
                    " target_sessions, started_ns + :off, window_start_ns + :off, window_end_ns + :off, ended_ns + :off,"
                    " verdict, detail, ") +
            (has_shortfall ? "shortfall" : "''") + ", " + (has_pool_hosts ? "pool_hosts" : "NULL") + " FROM src.steps",
        off, shift, s.run.host, nullptr);
    exec_counted(
        "INSERT INTO main.sessions(run_id, id, host, profile, pid, device_name, device_type, driver_name, driver_info,"
        " software, started_ns, ended_ns, end_reason, exit_code, signal, frames_sent, frames_received, frames_lost,"
        " model_open_ms, detail) SELECT run_id, id + :shift, " + host + ", profile, pid, device_name, device_type,"
        " driver_name, driver_info, software, started_ns + :off, ended_ns + :off, end_reason, exit_code, signal,"
        " frames_sent, frames_received, frames_lost, model_open_ms, detail FROM src.sessions",
        off, shift, s.run.host, &m.sessions);
    copy_frames(s.path, off, shift, &m.frames);
    exec_counted("INSERT INTO main.samples(t_ns, host, session_id, source, metric, value) SELECT t_ns + :off, " +
                     host + ", session_id + :shift, source, metric, value FROM src.samples ORDER BY rowid",
                 off, shift, s.run.host, &m.samples);
    exec_counted("INSERT INTO main.events(t_ns, host, session_id, kind, detail) SELECT t_ns + :off, " + host +
                     ", session_id + :shift, kind, detail FROM src.events ORDER BY rowid",
                 off, shift, s.run.host, &m.events);
    copy_endpoint_rows(off, shift, s.run.host);
    // A pool run's host database names its own verdicts by host and holds the pool's as ''; a
    // single-host database's '' rows are that host's own.
    const bool named = std::any_of(s.verdicts.begin(), s.verdicts.end(),
                                   [&](const VerdictRow& v) { return v.host == s.run.host; });
    for (VerdictRow v : s.verdicts) {
        const bool own = named ? v.host == s.run.host : v.host.empty();
        if (!own) continue;
        v.host = s.run.host;
        v.t0_ns += off;
        v.t1_ns += off;
        v.judged_ns += off;
        // The reasons name the host's sessions by its own numbers; the merged file's are shifted.
        for (auto& r : v.reasons) r = core::renumber_session_reason(r, shift);
        st_->apply(cmd::AddVerdict{v});
        host_rows_.push_back(v);
        ++m.verdicts;
    }
    st_->commit();
    db_.exec("DETACH DATABASE src", "closing an input");
    copied_any_ = true;
}

// What RDP launchers saw (endpoint_logons, endpoint_arrivals, endpoint_ssim), in the
// reference's time base with session numbers shifted as the sessions' were. Logon numbers are
// per run, so each input's follow the output's highest. Files written before the tables existed
// have none to copy.
void MergeWriter::copy_endpoint_rows(int64_t off, int64_t shift, const std::string& host) {
    {
        Stmt c(db_, "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = 'endpoint_logons'");
        if (!c.step() || c.col_int(0) == 0) return;
    }
    int64_t logon_shift = 0;
    {
        Stmt c(db_, "SELECT coalesce(max(id), 0) FROM main.endpoint_logons");
        if (c.step()) logon_shift = c.col_int(0);
    }
    Stmt q(db_,
           "INSERT INTO main.endpoint_logons(id, launcher, rdp_host, host, user, session_id, connect_ns, logon_ms,"
           " ended_ns, fault, fault_detail, codec, payload_bytes, bytes_per_s, paints, unreadable, rendered, arrivals,"
           " fps, delivered_ratio, interval_p50_ms, interval_p95_ms, interval_p99_ms, latency_p50_ms, latency_p95_ms,"
           " ssim_samples, ssim_mean, ssim_min) SELECT id + :logon, launcher, rdp_host, host, user, session_id + :shift,"
           " connect_ns + :off, logon_ms, ended_ns + :off, fault, fault_detail, codec, payload_bytes, bytes_per_s,"
           " paints, unreadable, rendered, arrivals, fps, delivered_ratio, interval_p50_ms, interval_p95_ms,"
           " interval_p99_ms, latency_p50_ms, latency_p95_ms, ssim_samples, ssim_mean, ssim_min"
           " FROM src.endpoint_logons ORDER BY id",
           "copying rows");
    q.bind_int(sqlite3_bind_parameter_index(q.get(), ":logon"), logon_shift);
    q.bind_int(sqlite3_bind_parameter_index(q.get(), ":shift"), shift);
    q.bind_int(sqlite3_bind_parameter_index(q.get(), ":off"), off);
    q.run();
    exec_counted("INSERT INTO main.endpoint_arrivals(session_id, seq, arrival_ns) SELECT session_id + :shift, seq,"
                 " arrival_ns + :off FROM src.endpoint_arrivals",
                 off, shift, host, nullptr);
    exec_counted("INSERT INTO main.endpoint_ssim(session_id, seq, ssim) SELECT session_id + :shift, seq, ssim"
                 " FROM src.endpoint_ssim ORDER BY rowid",
                 off, shift, host, nullptr);
}

namespace {

core::HostVerdict host_verdict_of(const VerdictRow& v) {
    core::HostVerdict h;
    h.host = v.host;
    h.verdict = verdict_of(v);
    h.sessions_judged = static_cast<uint64_t>(v.sessions);
    return h;
}

}  // namespace

void MergeWriter::apply_planned_shares(const std::string& plan_text, const std::string& source, uint32_t ranks) {
    std::vector<std::optional<int>> pool_hosts;
    {
        Stmt s(db_, "SELECT idx, max(pool_hosts) FROM main.steps GROUP BY idx ORDER BY idx");
        while (s.step()) {
            const size_t idx = static_cast<size_t>(std::max<int64_t>(0, s.col_int(0)));
            if (idx > 100000) break;  // a damaged file's index: nothing to place
            pool_hosts.resize(std::max(pool_hosts.size(), idx + 1), pool_hosts.empty() ? std::nullopt : pool_hosts.back());
            pool_hosts[idx] = s.col_null(1) ? std::nullopt : std::optional<int>(static_cast<int>(s.col_int(1)));
        }
    }
    planned_ = core::planned_pool_steps(plan_text, source, pool_hosts, ranks);
    st_->begin();
    Stmt up(db_, "UPDATE main.steps SET target_sessions = ?1 WHERE idx = ?2", "storing the steps' planned sessions");
    for (size_t i = 0; i < planned_.size(); ++i)
        if (planned_[i]) up.bind_int(1, planned_[i]->total).bind_int(2, static_cast<int64_t>(i)).run();
    st_->commit();
}

bool MergeWriter::write_pool_verdicts(const std::vector<MergeSource>& src, const std::vector<MergedHost>& hosts) {
    const MergeSource& r = src.front();
    const bool named = std::any_of(r.verdicts.begin(), r.verdicts.end(),
                                   [&](const VerdictRow& v) { return v.host == r.run.host; });
    std::vector<VerdictRow> rows;
    bool combined = false;
    if (named) {  // judged live by the pool's coordinator, over every host's session figures
        for (const VerdictRow& v : r.verdicts)
            if (v.host.empty()) rows.push_back(v);
    }
    if (rows.empty()) {
        combined = true;
        // Each step's pool size: a host beyond it (idle in a scaling series) takes no part.
        std::map<int, int> pool_hosts;
        {
            Stmt s(db_, "SELECT idx, max(pool_hosts) FROM main.steps WHERE pool_hosts IS NOT NULL GROUP BY idx");
            while (s.step()) pool_hosts[static_cast<int>(s.col_int(0))] = static_cast<int>(s.col_int(1));
        }
        auto planned = [&](int step) -> const core::PlannedStep* {
            return step >= 0 && size_t(step) < planned_.size() && planned_[size_t(step)] ? &*planned_[size_t(step)] : nullptr;
        };
        auto takes_part = [&](const MergedHost& h, int step) {
            auto it = pool_hosts.find(step);
            std::optional<uint32_t> share;
            if (const core::PlannedStep* p = planned(step); p && h.rank && size_t(*h.rank) < p->shares.size())
                share = p->shares[size_t(*h.rank)];
            return !core::sits_out(h.rank, it == pool_hosts.end() ? std::nullopt : std::optional<int>(it->second), share);
        };
        std::map<std::pair<int, int>, std::vector<const VerdictRow*>> spans;
        for (const VerdictRow& v : host_rows_) spans[{v.step_idx, v.repeat}].push_back(&v);
        for (auto& [key, list] : spans) {
            std::vector<core::HostVerdict> hv;
            VerdictRow p;
            p.step_idx = key.first;
            p.repeat = key.second;
            p.t0_ns = list.front()->t0_ns;
            p.t1_ns = list.front()->t1_ns;
            for (const VerdictRow* v : list) {
                hv.push_back(host_verdict_of(*v));
                p.sessions += v->sessions;
                p.t0_ns = std::min(p.t0_ns, v->t0_ns);
                p.t1_ns = std::max(p.t1_ns, v->t1_ns);
                p.judged_ns = std::max(p.judged_ns, v->judged_ns);
            }
            core::StepVerdict x = core::pool_verdict(hv);
            // A host lost during this step has no row for it: the pool did not pass the step. One
            // lost later whose file is not here ran the step, but its verdict is not known.
            for (const MergedHost& h : hosts)
                if (h.lost && takes_part(h, key.first) &&
                    std::none_of(list.begin(), list.end(), [&](const VerdictRow* v) { return v->host == h.hostname; })) {
                    x.pass = false;
                    const bool later = h.file.empty() && h.lost_step && key.first < *h.lost_step;
                    x.reasons.push_back(later ? core::missing_host_reason(h.hostname) : core::lost_host_reason(h.hostname));
                }
            if (const core::PlannedStep* pl = planned(key.first)) x.target = pl->total;
            put_verdict(p, x);
            rows.push_back(std::move(p));
        }
    }
    st_->begin();
    for (VerdictRow& v : rows) {
        v.host.clear();
        st_->apply(cmd::AddVerdict{v});
    }
    st_->commit();
    pool_rows_ = std::move(rows);
    return combined;
}

std::optional<int64_t> MergeWriter::pool_max_density() const {
    std::vector<const VerdictRow*> steps;
    for (const VerdictRow& v : pool_rows_)
        if (v.repeat == pooled_repeat) steps.push_back(&v);
    std::sort(steps.begin(), steps.end(), [](auto* a, auto* b) { return a->step_idx < b->step_idx; });
    std::vector<core::StepPass> pass;
    for (const VerdictRow* v : steps) pass.push_back({static_cast<uint32_t>(v->target_sessions), v->pass});
    return static_cast<int64_t>(core::max_density(pass).sessions);
}

std::optional<int64_t> MergeWriter::write_scaling(const std::vector<MergedHost>& hosts) {
    // The steps' pool sizes in ramp order; a run of equal sizes is one ramp of the series.
    struct Ramp {
        int hosts = 0, first = 0, last = 0;
        std::vector<core::StepPass> pass;
    };
    std::vector<Ramp> ramps;
    {
        Stmt s(db_, "SELECT idx, max(pool_hosts) FROM main.steps GROUP BY idx ORDER BY idx");
        while (s.step()) {
            if (s.col_null(1)) continue;
            const int idx = static_cast<int>(s.col_int(0)), h = static_cast<int>(s.col_int(1));
            if (ramps.empty() || ramps.back().hosts != h) ramps.push_back({h, idx, idx, {}});
            ramps.back().last = idx;
        }
    }
    if (ramps.empty()) return std::nullopt;
    for (Ramp& r : ramps)
        for (const VerdictRow& v : pool_rows_)
            if (v.repeat == pooled_repeat && v.step_idx >= r.first && v.step_idx <= r.last)
                r.pass.push_back({static_cast<uint32_t>(v.target_sessions), v.pass});
    std::optional<int64_t> on_one;
    for (Ramp& r : ramps) {
        std::sort(r.pass.begin(), r.pass.end(), [](const core::StepPass& a, const core::StepPass& b) { return a.target < b.target; });
        if (r.hosts == 1) on_one = static_cast<int64_t>(core::max_density(r.pass).sessions);
    }
    st_->begin();
    Stmt ins(db_,
             "INSERT OR REPLACE INTO scaling(run_id, hosts, first_step, last_step, max_sessions, efficiency, complete)"
             " VALUES(1, ?1, ?2, ?3, ?4, ?5, ?6)",
             "storing the scaling rows");
    for (const Ramp& r : ramps) {
        const uint32_t max = core::max_density(r.pass).sessions;
        // Complete: no host of this pool size was lost before or during its steps.
        bool complete = true;
        for (const MergedHost& h : hosts)
            if (h.lost && h.rank && *h.rank < r.hosts && (!h.lost_step || *h.lost_step <= r.last)) complete = false;
        const double e = on_one ? core::scaling_efficiency(max, static_cast<uint32_t>(r.hosts), static_cast<uint32_t>(*on_one))
                                : NAN;
        ins.bind_int(1, r.hosts).bind_int(2, r.first).bind_int(3, r.last).bind_int(4, max);
        if (std::isnan(e)) ins.bind_null(5);
        else ins.bind_real(5, e);
        ins.bind_int(6, complete ? 1 : 0).run();
    }
    st_->commit();
    const Ramp* largest = &ramps.front();
    for (const Ramp& r : ramps)
        if (r.hosts >= largest->hosts) largest = &r;
    return static_cast<int64_t>(core::max_density(largest->pass).sessions);
}

void MergeWriter::write_run(const RunRow& ref, RunStatus status, std::optional<int64_t> ended_unix_ns,
                            std::optional<int64_t> max_density) {
    st_->begin();
    st_->apply(cmd::BeginRun{static_cast<const RunInfo&>(ref)});
    if (status != RunStatus::running && status != RunStatus::crashed)
        st_->apply(cmd::EndRun{status, ended_unix_ns.value_or(0), max_density});
    else
        db_.exec("UPDATE runs SET status = 'crashed' WHERE id = 1", "storing the run's status");
    st_->commit();
}

void MergeWriter::commit() {
    db_.exec(index_sql(), "building indexes");
    db_.exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing");
    st_.reset();
    db_.close();  // checkpointed above: the write-ahead log is empty and gone with the connection
    // The writer lock goes with the file (it is on the inode), so a reader never sees the final
    // name without a whole merge or a live writer behind it.
    if (::rename(partial_.c_str(), out_.c_str()) != 0)
        throw InputError(out_ + ": cannot give the finished merge its name (from " + partial_ + "): " + std::strerror(errno));
    lock_.close();
    for (const char* suffix : {"-wal", "-shm"}) ::unlink((partial_ + suffix).c_str());
    committed_ = true;
}

}  // namespace seatmark::store
