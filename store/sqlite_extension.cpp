// libseatmark_sqlite.so: a SQLite loadable extension that gives any SQLite host (the sqlite3
// shell's `.load`, Python's `load_extension`, pandas through either) the read-only `frames` table
// seatmark's own connections have (store/frames_table.h): one row per frame of a schema-4 file,
// decoded from frame_blocks with the same code and the same block check. Built only into that
// module (store/CMakeLists.txt), with SEATMARK_SQLITE_EXTENSION: every SQLite call goes through the
// routines the host hands over (store/sqlite_api.h).
#include "store/frames_table.h"

SQLITE_EXTENSION_INIT1

// SQLite derives this name from the file name libseatmark_sqlite.so ("lib" dropped, letters only),
// so `.load libseatmark_sqlite` finds it without naming an entry point.
extern "C" __attribute__((visibility("default"))) int sqlite3_seatmarksqlite_init(sqlite3* db, char** error,
                                                                                 const sqlite3_api_routines* api) {
    SQLITE_EXTENSION_INIT2(api);
    const int rc = seatmark::store::register_frames_table(db);
    if (rc != SQLITE_OK && error) *error = sqlite3_mprintf("seatmark: registering the frames table: %s", sqlite3_errstr(rc));
    return rc;
}
