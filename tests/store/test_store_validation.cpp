// A reader refuses what is not a seatmark run database of a version it reads (2 or 3), naming the file and what it
// expected, and a damaged sessions table as damaged; a writer refuses to overwrite or to create where it cannot.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/errors.h"
#include "store/sqlite_handle.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::store;

namespace {

// The InputError message the reader gives for `path`, or "" if it opened.
std::string reader_error(const std::string& path) {
    try {
        StoreReader r(path);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

std::string writer_error(const std::string& path, StoreOptions options = {}) {
    try {
        StoreWriter::open(path, options).finish();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A finished run database with some frames in it.
void make_db(const std::string& path, int frames = 20000) {
    StoreWriter w = StoreWriter::open(path);
    w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h"});
    std::vector<FrameRecord> v(static_cast<size_t>(frames));
    for (size_t i = 0; i < v.size(); ++i) v[i].seq = i;
    w.add_frames(1, std::move(v));
    w.end_run(RunStatus::finished);
    w.finish();
}

}  // namespace

TEST_CASE("store: reader refuses a file that is not SQLite") {
    test::TempDir dir;
    std::string path = dir.file("notes.db");
    std::string text;
    for (int i = 0; i < 200; ++i) text += "this is a text file, not a database\n";
    test::write_file(path, text);
    std::string err = reader_error(path);
    CAPTURE(err);
    CHECK(contains(err, "notes.db"));
    CHECK(contains(err, "not an SQLite database (expected a seatmark run database)"));
}

TEST_CASE("store: reader refuses an SQLite file without seatmark's tables") {
    test::TempDir dir;
    std::string path = dir.file("other.db");
    {
        Db db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT)", "test");
    }
    std::string err = reader_error(path);
    CAPTURE(err);
    CHECK(contains(err, "other.db: not a seatmark run database (no 'runs' table)"));

    std::string empty = dir.file("empty.db");
    test::write_file(empty, "");
    err = reader_error(empty);
    CAPTURE(err);
    CHECK(contains(err, "empty.db: not a seatmark run database (no 'runs' table)"));
}

TEST_CASE("store: reader refuses another schema version") {
    test::TempDir dir;
    std::string path = dir.file("future.db");
    make_db(path, 10);
    {
        Db db(path, SQLITE_OPEN_READWRITE);
        db.exec("PRAGMA user_version = 7", "test");
    }
    std::string err = reader_error(path);
    CAPTURE(err);
    CHECK(contains(err, "future.db: schema version 7 was written by a newer seatmark; this one reads schema 4"));
    CHECK(contains(err, "read it with the seatmark that wrote it"));
    // A file from before verdicts were rows (schema 1) is refused too, saying so.
    std::string old = dir.file("old.db");
    make_db(old, 10);
    {
        Db db(old, SQLITE_OPEN_READWRITE);
        db.exec("PRAGMA user_version = 1", "test");
    }
    std::string err1 = reader_error(old);
    CAPTURE(err1);
    CHECK(contains(err1, "old.db: schema version 1 was written by an older seatmark; this one reads schema 2 to 4"));
}

TEST_CASE("store: reader refuses a file with a 'runs' table that is not seatmark's") {
    test::TempDir dir;
    std::string path = dir.file("foreign.db");
    {
        Db db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE runs(x); PRAGMA user_version = 1;", "test");
    }
    std::string err = reader_error(path);
    CAPTURE(err);
    CHECK(contains(err, "foreign.db: not a seatmark run database (application_id 0x00000000, expected 0x53454154)"));
}

TEST_CASE("store: reader refuses a truncated copy of a real database") {
    test::TempDir dir;
    std::string path = dir.file("run.db"), copy = dir.file("half.db");
    make_db(path);
    std::filesystem::copy_file(path, copy);
    auto size = std::filesystem::file_size(copy);
    REQUIRE(size > 64 * 1024);
    std::filesystem::resize_file(copy, size / 2);
    std::string err = reader_error(copy);
    CAPTURE(err);
    CHECK(contains(err, "half.db"));
    CHECK(contains(err, "truncated"));
    CHECK(contains(err, "expected a complete seatmark run database"));
    CHECK(reader_error(path).empty());  // the original still opens
}

TEST_CASE("store: a sessions table that repeats an id is refused as damaged, not read again and again") {
    // fuzz_store found a file whose damaged B-tree handed out its 3 session rows as 1024; each read its
    // frames again, and the monitor took 20 s on a 475 kB file. Without the primary key, as here, SQLite
    // gives the repeats as a damaged page does.
    test::TempDir dir;
    std::string path = dir.file("run.db");
    {
        StoreWriter w = StoreWriter::open(path);
        w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h"});
        w.add_session({.id = 0, .profile = "p", .pid = 10, .device = {}, .started_ns = 1, .host = ""});
        w.add_session({.id = 1, .profile = "p", .pid = 11, .device = {}, .started_ns = 1, .host = ""});
        w.end_run(RunStatus::finished);
        w.finish();
    }
    CHECK(StoreReader(path).sessions().size() == 2);
    {
        Db d(path, SQLITE_OPEN_READWRITE);
        d.exec("PRAGMA foreign_keys = OFF; ALTER TABLE sessions RENAME TO old_sessions;"
               " CREATE TABLE sessions AS SELECT * FROM old_sessions;"
               " INSERT INTO sessions SELECT * FROM old_sessions WHERE id = 1; DROP TABLE old_sessions;",
               "repeating a session row");
    }
    std::string err;
    try {
        (void)StoreReader(path).sessions();
    } catch (const std::exception& e) {
        err = e.what();
    }
    CAPTURE(err);
    CHECK(contains(err, path + ": reading sessions: session 1 comes after session 1"));
    CHECK(contains(err, "the file is damaged"));
    CHECK(contains(err, "`sqlite3 " + path + " .recover`"));  // what to run, on this file
}

TEST_CASE("store: reader names a missing file") {
    test::TempDir dir;
    std::string err = reader_error(dir.file("nothing.db"));
    CAPTURE(err);
    CHECK(contains(err, "nothing.db: cannot read the run database: No such file or directory"));
}

TEST_CASE("store: writer refuses to overwrite unless told to") {
    test::TempDir dir;
    std::string path = dir.file("run.db");
    make_db(path, 100);
    const std::string before = test::read_file(path);
    std::string err = writer_error(path);
    CAPTURE(err);
    CHECK(contains(err, "run.db exists; choose another --db or remove it"));
    // Untouched, byte for byte (not read through StoreReader: a file this process has read as an
    // input is one no writer of this process may replace, common/input_file.h).
    CHECK(test::read_file(path) == before);

    CHECK(writer_error(path, {.overwrite = true}).empty());
    StoreReader r(path);
    CHECK(r.frame_count() == 0);  // a fresh database

    // Not even with overwrite while another writer is still writing it.
    StoreWriter live = StoreWriter::open(dir.file("live.db"));
    err = writer_error(dir.file("live.db"), {.overwrite = true});
    CAPTURE(err);
    CHECK(contains(err, "live.db is being written by a running seatmark"));
    live.finish();
}

TEST_CASE("store: writer says why it cannot create the file") {
    test::TempDir dir;
    std::string err = writer_error(dir.file("no/such/dir/run.db"));
    CAPTURE(err);
    CHECK(contains(err, "no/such/dir/run.db: cannot create: No such file or directory"));

    test::write_file(dir.file("plain"), "x");
    err = writer_error(dir.file("plain/run.db"));
    CAPTURE(err);
    CHECK(contains(err, "plain/run.db: cannot create: Not a directory"));
}

TEST_CASE("store: writer says why it cannot create the file in a read-only directory") {
    if (geteuid() == 0) SEATMARK_SKIP("root ignores directory permissions");
    test::TempDir dir;
    std::string ro = dir.file("ro");
    REQUIRE(mkdir(ro.c_str(), 0555) == 0);
    std::string err = writer_error(ro + "/run.db");
    CAPTURE(err);
    CHECK(contains(err, "ro/run.db: cannot create: Permission denied"));
    chmod(ro.c_str(), 0755);
}
