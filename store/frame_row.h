#pragma once
// One `frames` row (the virtual table of store/frames_table.h, or a v2/v3 file's real table) as a
// FrameRecord: the column list and the conversion, in one place for every reader of it (the
// store reader and the merge). checked_block (store/block_check.h) is here too for the readers
// that decode blocks themselves.
#include <string>

#include "common/frame_record.h"
#include "store/block_check.h"
#include "store/sqlite_handle.h"

namespace seatmark::store {

// The columns frame_row reads, in its order, for "SELECT <these> FROM frames ...".
inline constexpr const char* frame_row_columns =
    "seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns, latency_ns, stretch, mode, flags, begin_interval_ns, t_present_ns";

// The row's frame, its columns (frame_row_columns) starting at result column `first`.
FrameRecord frame_row(const Stmt& s, int first = 0);

}  // namespace seatmark::store
