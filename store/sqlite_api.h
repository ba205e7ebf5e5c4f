#pragma once
// Which SQLite the frames table (store/frames_table.cpp) and the block check (store/block_check.cpp)
// call. In seatmark's own processes: the linked library. Compiled into the loadable extension
// (store/sqlite_extension.cpp, SEATMARK_SQLITE_EXTENSION defined): the routines the loading
// process hands over, so the extension works in any host (the sqlite3 shell, Python, pandas) with
// whatever SQLite that host carries, and the extension links no SQLite of its own.
#ifdef SEATMARK_SQLITE_EXTENSION
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#else
#include <sqlite3.h>
#endif
