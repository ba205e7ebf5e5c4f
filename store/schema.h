#pragma once
// The run database's schema: its text (with a comment on every column), its version,
// how a new file is set up, and how a reader checks that a file is one it understands.
// docs/store.md describes the same tables for people.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "store/sqlite_handle.h"

namespace seatmark::store {

inline constexpr int schema_version = 4;                // PRAGMA user_version, what a writer writes
// The oldest version a reader reads. Version 2 has no host columns: it reads as a pool of one
// host (runs.host), every sample, event and verdict that host's (docs/store.md).
inline constexpr int oldest_readable_version = 2;
inline constexpr int32_t application_id = 0x53454154;   // PRAGMA application_id, 'SEAT'
inline constexpr int64_t the_run_id = 1;                // one run per file: runs.id

// CREATE TABLE statements for every table (executed once, when the file is created).
extern const char* const schema_sql;
// Version 4 stores frames in blocks (frame_blocks); 3 and older as rows (frames).
inline constexpr int first_block_version = 4;

// CREATE INDEX IF NOT EXISTS statements of a file of `version`: built when the run finishes
// (never during ingest), or by a reader that finds them missing after a writer died.
const char* index_sql(int version = schema_version);

// The tables every readable file of `version` has, in schema order.
std::span<const std::string_view> table_names(int version = schema_version);

// WAL, synchronous=NORMAL and the other settings a writing connection uses.
void configure_writer(const Db& db);

// Creates every table in one transaction and stamps user_version and application_id.
void create_schema(const Db& db);

// Throws InputError unless `db` is a seatmark run database of a version from
// oldest_readable_version to schema_version; returns its version.
//   "x.db: not an SQLite database (expected a seatmark run database)"
//   "x.db: not a seatmark run database (no 'runs' table)"
//   "x.db: schema version 7 was written by a newer seatmark; this one reads schema 4: ..."
//   "x.db: damaged or truncated (database disk image is malformed); expected a complete seatmark run database"
int validate_schema(const Db& db);

// True when every index of index_sql(version) exists.
bool indexes_present(const Db& db, int version);

}  // namespace seatmark::store
