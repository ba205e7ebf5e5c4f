#pragma once
// `seatmark merge`: the host databases of one pool run -> one run database, every row keyed by
// host, every time stamp in one time base (the reference host's: rank 0's, or the lowest rank
// present). docs/store.md ("Merging") describes the rules; in short:
//   - inputs must be one run: the same plan text and pool id; one database per host;
//   - sessions keep their numbers when they are unique over the inputs (a pool run numbers
//     them by rank), else every file's are shifted past the previous file's;
//   - a host's stamps move by its clock offset to the reference (hosts.clock_offset_ns, as
//     measured over MPI); files without one (separate single-host runs) keep their stamps;
//   - each host's own verdict rows are kept under its name; the pool's rows are the reference's
//     (judged live by rank 0) or, without them, combined from the hosts' (core/pool_rules.h);
//   - a host marked lost in any input is lost in the output, which is then 'degraded'.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "store/records.h"

namespace seatmark::store {

struct MergeOptions {
    bool overwrite = false;                                 // replace an existing output
    std::function<void(const std::string&)> progress;       // one line per step of the work
    // Why a listed host has no database among the inputs, by host name (a pool's rank 0 knows:
    // its transfer failed); the lost host's detail then says so instead of guessing.
    std::map<std::string, std::string> missing_detail;
};

struct MergedHost {
    std::string hostname, file;  // file "" for a lost host that has no database among the inputs
    std::optional<int> rank;
    int64_t clock_offset_ns = 0;     // what its stamps were moved by
    bool offset_known = false;       // false: no offset to the reference was recorded
    int64_t session_id_shift = 0;    // added to its session numbers
    int64_t sessions = 0, frames = 0, samples = 0, events = 0, verdicts = 0;
    bool lost = false;
    std::optional<int> lost_step;    // steps.idx during which it was lost
};

struct MergeResult {
    std::string reference;          // the host whose time base the output uses
    std::vector<MergedHost> hosts;  // in rank order
    RunStatus status = RunStatus::finished;
    std::optional<int64_t> max_density;  // the pool's
    bool pool_verdicts_combined = false; // true: the pool rows were combined from the hosts' rows
};

// Throws InputError naming the file and what to do (mismatched runs, a host twice, an output
// that exists or is an input) before writing anything; StoreError on a write failure (the
// partial output is removed).
MergeResult merge_databases(const std::string& out, const std::vector<std::string>& inputs,
                            const MergeOptions& options = {});

}  // namespace seatmark::store
