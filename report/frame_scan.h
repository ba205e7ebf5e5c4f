#pragma once
// Reads every frame of a run database in one pass, fast: the frames table is scanned in
// rowid (insertion) order, split into contiguous rowid ranges read in parallel, each on its
// own read-only connection (no API mutex, memory-mapped I/O), with the rows handed to an
// aggregate SQL function that appends them to per-session arrays (no result row per frame).
// A session's frames are inserted in order, so the ranges concatenate back into its sequence.
//
// Only the columns the report uses are read: seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns,
// latency_ns. stretch, mode and flags are left 0.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/frame_record.h"

namespace seatmark::report {

struct FrameScanOptions {
    int threads = 2;  // parallel rowid ranges (1..8)
    // (frames read so far, frames in the table); called on the calling thread every ~100 ms.
    std::function<void(uint64_t, uint64_t)> progress;
    // Frames expected per session (e.g. sessions.frames_received): arrays are sized once
    // instead of growing. A wrong hint costs only time.
    std::map<int, uint64_t> expected;
};

// Every session's frames, ordered by t_begin_ns (for frames of one session that is their seq
// order; a file whose rows are out of order is sorted). Throws store::StoreError on a read error.
std::map<int, std::vector<FrameRecord>> scan_frames(const std::string& db_path, const FrameScanOptions& options = {});

}  // namespace seatmark::report
