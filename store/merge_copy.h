#pragma once
// The parts of `seatmark merge` (store/merge.h) that read one input and write the output: an
// input's metadata, and the writer that copies its rows (ATTACH + INSERT ... SELECT, with time
// stamps moved by the host's clock offset and session numbers shifted) and writes the pool rows.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/pool_shares.h"
#include "store/merge.h"
#include "store/records.h"
#include "store/sqlite_handle.h"
#include "store/writer_lock.h"
#include "store/writer_statements.h"

namespace seatmark::store {

struct MergeSource {
    std::string path;
    int version = 0;  // schema version of the file
    RunRow run;
    RunStatus status = RunStatus::running;  // effective (crashed when its writer died)
    std::vector<HostRow> hosts;
    HostRow own;                      // the row of its own host (runs.host)
    std::vector<int> session_ids;
    std::vector<VerdictRow> verdicts; // every row
    std::optional<int> last_step;     // the step its run was in at its end (steps rows or step-begin events)
    std::optional<int64_t> first_stamp_ns, last_stamp_ns;  // its events' and samples' (its own clock)
    int64_t offset_ns = 0;            // into the reference's time base
    bool offset_known = false;
    int64_t session_shift = 0;
};

// Reads an input's metadata; throws InputError as StoreReader does.
MergeSource load_source(const std::string& path);

class MergeWriter {
public:
    // Writes `out`.partial (a killed merge's leftover is replaced) and gives it the name `out` at
    // commit(); refused when `out` exists or another merge is writing it.
    explicit MergeWriter(const std::string& out);
    ~MergeWriter();  // removes the partial output unless commit() ran
    MergeWriter(const MergeWriter&) = delete;
    MergeWriter& operator=(const MergeWriter&) = delete;

    void add_host(const HostRow& h);
    // Copies the steps (ones the output lacks), sessions, frames, samples, events, endpoint rows
    // and the host's own verdict rows of `s`; counts them into `m`.
    void copy_rows(const MergeSource& s, MergedHost& m);
    // What the plan placed in each step (core/pool_shares.h), by step index, read from the
    // reference's plan and the copied steps' pool sizes; every step's target becomes the pool's
    // planned total (a lost host's share counts, though its file is missing). Nothing changes
    // where the plan does not say. Call after every copy_rows.
    void apply_planned_shares(const std::string& plan_text, const std::string& source, uint32_t ranks);
    // The pool's verdict rows: the reference's (src.front()) when it has them, else combined
    // from the hosts' rows with core::pool_verdict. Returns true when combined.
    bool write_pool_verdicts(const std::vector<MergeSource>& src, const std::vector<MergedHost>& hosts);
    std::optional<int64_t> pool_max_density() const;
    // The scaling rows: one per pool size the steps ran on (steps.pool_hosts), with E(H) from the
    // pool's step verdicts. Nothing for files without pool sizes.
    // Returns the max density on the largest pool size (the run's answer), nullopt without rows.
    std::optional<int64_t> write_scaling(const std::vector<MergedHost>& hosts);  // core::max_density over the pool's step rows
    void write_run(const RunRow& ref, RunStatus status, std::optional<int64_t> ended_unix_ns,
                   std::optional<int64_t> max_density);
    void commit();  // builds the indexes, checkpoints, closes, renames to the final name

private:
    void exec_counted(const std::string& sql, int64_t off, int64_t shift, const std::string& host, int64_t* count);
    void copy_frames(const std::string& path, int64_t off, int64_t shift, int64_t* count);
    void copy_endpoint_rows(int64_t off, int64_t shift, const std::string& host);

    std::string out_;
    std::string partial_;
    FileHandle lock_;
    Db db_;
    std::optional<WriterStatements> st_;
    std::vector<VerdictRow> host_rows_;  // every host's own rows, as written (host set, times moved)
    std::vector<VerdictRow> pool_rows_;
    std::vector<std::optional<core::PlannedStep>> planned_;  // by step index; empty when the plan does not say
    bool committed_ = false;
    bool copied_any_ = false;  // the reference (copied first) is in
};

}  // namespace seatmark::store
