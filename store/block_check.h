#pragma once
// One frame_blocks row's blob, checked, for every reader that decodes blocks itself (the virtual
// table, the store reader's window read, the report's scan, the loadable extension).
#include <cstdint>
#include <string>

#include "store/sqlite_api.h"

namespace seatmark::store {

// The packed block (store/frame_block.h) in result column `col` of a frame_blocks row that says
// it holds `expected` frames, checked before any frame of it is decoded. Null, with `error` set to
// "frame block B (session S): what is wrong", when the column is not a sound block.
const unsigned char* checked_block(sqlite3_stmt* s, int col, int64_t block, int64_t session, int64_t expected,
                                   std::string& error);

}  // namespace seatmark::store
