// libseatmark_sqlite.so (store/sqlite_extension.cpp): schema 4's frames read with plain SQL by hosts
// that are not seatmark, the sqlite3 shell and Python's sqlite3, give exactly the rows `seatmark
// export frames` prints; a damaged block fails the statement with the block and session named.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "store/sqlite_handle.h"
#include "store/store_writer.h"
#include "tests/support/frames.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::store;
using seatmark::test::frames_of;
using seatmark::test::run_process;

namespace {

const std::string extension = SEATMARK_SQLITE_EXTENSION_PATH;
const char* columns =
    "session_id, seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns, latency_ns, stretch, mode, flags, begin_interval_ns,"
    " t_present_ns";

// A finished run: session 0 in three messages of 5000 frames (each split at 4096 into two blocks),
// session 1 in one message of 300: 15,300 frames in 7 blocks.
void write_run(const std::string& db) {
    StoreWriter w = StoreWriter::open(db);
    w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h", .started_unix_ns = 1, .mono_origin_ns = 0});
    w.add_session({.id = 0, .profile = "p", .pid = 10, .device = {}, .started_ns = 1, .host = ""});
    w.add_session({.id = 1, .profile = "p", .pid = 11, .device = {}, .started_ns = 1, .host = ""});
    for (int m = 0; m < 3; ++m) w.add_frames(0, frames_of(static_cast<uint64_t>(m) * 5000, 5000, 1'000'000'000));
    w.add_frames(1, frames_of(0, 300, 5'000'000'000));
    w.end_run(RunStatus::finished, 2, 0);
    w.finish();
}

std::string shell_select() {
    return std::string("SELECT ") + columns + " FROM frames ORDER BY session_id, seq";
}

size_t lines(const std::string& s) {
    size_t n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

}  // namespace

TEST_CASE("the SQLite extension gives the sqlite3 shell and Python exactly the frames `seatmark export frames` prints") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    write_run(db);

    const auto exported = run_process(test::seatmark_argv({"export", "frames", db}));
    REQUIRE(exported.exit_code == 0);
    REQUIRE(lines(exported.out) == 15'301);  // header + every frame

    // The shell, read-only, loading the module by its path as a user would.
    const auto shell = run_process({"/usr/bin/sqlite3", "-readonly", "-batch", "-tabs", "-header", "-cmd", ".load " + extension, db,
                                    shell_select()});
    INFO(shell.err);
    REQUIRE(shell.exit_code == 0);
    CHECK(shell.out == exported.out);

    // Python's sqlite3 (what pandas' read_sql uses), rows printed tab-separated with the same header.
    const std::string py =
        "import sqlite3, sys\n"
        "db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)\n"
        "db.enable_load_extension(True)\n"
        "db.load_extension(sys.argv[2])\n"
        "cur = db.execute(sys.argv[3])\n"
        "out = ['\\t'.join(d[0] for d in cur.description)]\n"
        "out += ['\\t'.join(str(v) for v in row) for row in cur]\n"
        "sys.stdout.write('\\n'.join(out) + '\\n')\n";
    const auto python = run_process({"/usr/bin/python3", "-c", py, db, extension, shell_select()});
    INFO(python.err);
    REQUIRE(python.exit_code == 0);
    CHECK(python.out == exported.out);

    // A range query on one session, as a window read would, uses the same blocks.
    const auto range = run_process({"/usr/bin/sqlite3", "-readonly", "-batch", "-cmd", ".load " + extension, db,
                                    "SELECT count(*), min(seq), max(seq) FROM frames WHERE session_id = 0 AND "
                                    "t_begin_ns >= 1000000000 + 4000 * 16000000 AND t_begin_ns < 1000000000 + 9000 * 16000000"});
    REQUIRE(range.exit_code == 0);
    CHECK(range.out == "5000|4000|8999\n");
}

TEST_CASE("the SQLite extension fails a damaged block with the block and its session named, and links no SQLite") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    write_run(db);
    {
        Db h(db, SQLITE_OPEN_READWRITE);
        h.exec("UPDATE frame_blocks SET records = substr(records, 1, 100) WHERE session_id = 1", "damaging a block");
    }
    const auto shell = run_process({"/usr/bin/sqlite3", "-readonly", "-batch", "-cmd", ".load " + extension, db,
                                    "SELECT count(*) FROM frames"});
    CHECK(shell.exit_code != 0);
    CHECK(shell.err.find("frame block 7 (session 1)") != std::string::npos);
    CHECK(shell.err.find("the file is damaged") != std::string::npos);

    // The host's SQLite is the only one: the module must not bring a second copy (or libstdc++'s
    // symbols beyond its own) into the host.
    const auto needed = run_process({"/usr/bin/objdump", "-p", extension});
    REQUIRE(needed.exit_code == 0);
    CHECK(needed.out.find("libsqlite3") == std::string::npos);
    const auto exported = run_process({"/usr/bin/objdump", "-T", "--dynamic-syms", extension});
    REQUIRE(exported.exit_code == 0);
    size_t defined = 0;  // global functions it defines (weak template copies from libstdc++ aside)
    for (size_t at = 0; (at = exported.out.find(" g    DF .text", at)) != std::string::npos; ++at) ++defined;
    CHECK(defined == 1);  // sqlite3_seatmarksqlite_init alone
    CHECK(exported.out.find("sqlite3_seatmarksqlite_init") != std::string::npos);
}
