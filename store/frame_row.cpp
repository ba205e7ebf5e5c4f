#include "store/frame_row.h"

#include "store/frame_block.h"

namespace seatmark::store {

FrameRecord frame_row(const Stmt& s, int first) {
    FrameRecord f;
    f.seq = static_cast<uint64_t>(s.col_int(first + 0));
    f.t_begin_ns = s.col_int(first + 1);
    f.cpu_ns = s.col_int(first + 2);
    f.gpu_ns = s.col_int(first + 3);
    f.interval_ns = s.col_int(first + 4);
    f.latency_ns = s.col_int(first + 5);
    f.stretch = static_cast<uint32_t>(s.col_int(first + 6));
    f.mode = static_cast<uint16_t>(s.col_int(first + 7));
    f.flags = static_cast<uint16_t>(s.col_int(first + 8));
    f.begin_interval_ns = s.col_int(first + 9);
    f.t_present_ns = s.col_int(first + 10);
    return f;
}

const unsigned char* checked_block(sqlite3_stmt* s, int col, int64_t block, int64_t session, int64_t expected,
                                   std::string& error) {
    const auto* blob = static_cast<const unsigned char*>(sqlite3_column_blob(s, col));
    const auto bytes = static_cast<size_t>(sqlite3_column_bytes(s, col));
    std::string bad = sqlite3_column_type(s, col) == SQLITE_BLOB ? check_frame_block(blob, bytes, expected)
                                                                 : std::string("records is not a blob: the file is damaged");
    if (bad.empty()) return blob;
    error = "frame block " + std::to_string(block) + " (session " + std::to_string(session) + "): " + bad;
    return nullptr;
}

}  // namespace seatmark::store
