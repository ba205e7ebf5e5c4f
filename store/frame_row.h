#pragma once
// One `frames` row (the virtual table of store/frames_table.h, or a v2/v3 file's real table) as a
// FrameRecord: the column list and the conversion, in one place for every reader of it (the
// store reader and the merge). And one frame_blocks row's blob, checked, for every reader that
// decodes blocks itself (the virtual table, the store reader's window read, the report's scan).
#include <string>

#include "common/frame_record.h"
#include "store/sqlite_handle.h"

namespace seatmark::store {

// The columns frame_row reads, in its order, for "SELECT <these> FROM frames ...".
inline constexpr const char* frame_row_columns =
    "seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns, latency_ns, stretch, mode, flags, begin_interval_ns, t_present_ns";

// The row's frame, its columns (frame_row_columns) starting at result column `first`.
FrameRecord frame_row(const Stmt& s, int first = 0);

// The packed block (store/frame_block.h) in result column `col` of a frame_blocks row that says
// it holds `expected` frames, checked before any frame of it is decoded. Null, with `error` set to
// "frame block B (session S): what is wrong", when the column is not a sound block.
const unsigned char* checked_block(sqlite3_stmt* s, int col, int64_t block, int64_t session, int64_t expected,
                                   std::string& error);

}  // namespace seatmark::store
