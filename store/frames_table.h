#pragma once
// `frames` as seatmark's own connections see it in a schema-4 file: a read-only virtual table
// decoding frame_blocks (store/frame_block.h) into one row per frame with the columns schema 3's
// `frames` table had (session_id, seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns, latency_ns,
// stretch, mode, flags, begin_interval_ns, t_present_ns), so the same SQL reads both. In a file
// of schema 2 or 3 the real `frames` table shadows it (SQLite looks up real tables first).
// Its rowid is the frame block's. Connections that registered it have it: seatmark's own, and any
// host that loaded the extension libseatmark_sqlite.so (store/sqlite_extension.cpp, docs/store.md).
// A damaged block fails the statement: "frame block B (session S): <what is wrong>".
#include "store/sqlite_api.h"

namespace seatmark::store {

// Registers the eponymous module `frames` on `db`; returns an SQLite result code.
int register_frames_table(sqlite3* db);

}  // namespace seatmark::store
