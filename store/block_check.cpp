#include "store/block_check.h"

#include "store/frame_block.h"

namespace seatmark::store {

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
