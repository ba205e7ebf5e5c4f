// Schema 4's frame blocks (store/frame_block.h, store/frames_table.h, docs/store.md "Frame
// blocks"): the packed format, exact counts and ranges through the reader, a version-3 file with
// frames as rows, and damaged blocks refused with the file, the block and the session named.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "store/frame_block.h"
#include "store/schema.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/frames.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::store;
using seatmark::test::frames_of;

namespace {

bool same(const FrameRecord& a, const FrameRecord& b) {
    return a.seq == b.seq && a.t_begin_ns == b.t_begin_ns && a.cpu_ns == b.cpu_ns && a.gpu_ns == b.gpu_ns &&
           a.interval_ns == b.interval_ns && a.latency_ns == b.latency_ns && a.stretch == b.stretch &&
           a.mode == b.mode && a.flags == b.flags && a.begin_interval_ns == b.begin_interval_ns &&
           a.t_present_ns == b.t_present_ns;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A finished run: session 0 sends `messages` messages of `per` frames, session 1 one message of 9000.
void write_run(const std::string& db, int messages, size_t per) {
    StoreWriter w = StoreWriter::open(db);
    w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h", .started_unix_ns = 1, .mono_origin_ns = 0});
    w.add_session({.id = 0, .profile = "p", .pid = 10, .device = {}, .started_ns = 1, .host = ""});
    w.add_session({.id = 1, .profile = "p", .pid = 11, .device = {}, .started_ns = 1, .host = ""});
    for (int m = 0; m < messages; ++m) w.add_frames(0, frames_of(static_cast<uint64_t>(m) * per, per));
    w.add_frames(1, frames_of(0, 9000, 5'000'000'000));
    w.end_run(RunStatus::finished, 2, 0);
    w.finish();
}

int64_t one(const Db& db, const char* sql) {
    Stmt s(db, sql);
    return s.step() ? s.col_int(0) : -1;
}

// Rewrites block `rowid`'s records with `edit`.
template <class Edit>
void damage(const std::string& db, int64_t rowid, Edit edit) {
    Db d(db, SQLITE_OPEN_READWRITE);
    Stmt get(d, "SELECT records FROM frame_blocks WHERE rowid = ?1");
    get.bind_int(1, rowid);
    REQUIRE(get.step());
    auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(get.get(), 0));
    std::vector<unsigned char> b(p, p + sqlite3_column_bytes(get.get(), 0));
    get.reset();
    edit(b);
    Stmt set(d, "UPDATE frame_blocks SET records = ?2 WHERE rowid = ?1");
    set.bind_int(1, rowid).bind_blob(2, b.data(), b.size()).run();
}

std::string frames_error(const std::string& db, int session) {
    try {
        StoreReader r(db);
        (void)r.frames(session);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("store: a frame block packs every field little-endian and reads back exactly") {
    std::vector<FrameRecord> v = frames_of(0, 3);
    v[1].seq = std::numeric_limits<uint64_t>::max();
    v[1].t_begin_ns = std::numeric_limits<int64_t>::min();
    v[1].t_present_ns = std::numeric_limits<int64_t>::max();
    v[1].stretch = 0xfedcba98u;
    v[1].mode = 0xabcd;
    v[1].flags = 0x1234;
    std::vector<unsigned char> b;
    encode_frame_block(v, b);
    REQUIRE(b.size() == frame_block_header_bytes + 3 * frame_record_bytes);
    CHECK(b[0] == 1);
    CHECK(b[1] == 72);
    CHECK(b[4] == 3);
    CHECK((b[5] | b[6] | b[7]) == 0);
    // docs/store.md's offsets: seq at 0 of record 0, t_begin at 8, stretch at 64, flags at 70.
    const unsigned char* r1 = b.data() + 8 + 72;
    CHECK(r1[64] == 0x98);
    CHECK(r1[67] == 0xfe);
    CHECK(r1[70] == 0x34);
    CHECK(r1[71] == 0x12);
    CHECK(r1[8 + 7] == 0x80);  // INT64_MIN: only the sign bit, in the last byte
    CHECK(check_frame_block(b.data(), b.size(), 3).empty());
    for (size_t i = 0; i < 3; ++i) CHECK(same(decode_frame(b.data(), i), v[i]));
    // What a damaged block says.
    CHECK(contains(check_frame_block(b.data(), b.size() - 1, 3), "3 frames need 224"));
    CHECK(contains(check_frame_block(b.data(), 5, 3), "shorter than the 8-byte block header"));
    CHECK(contains(check_frame_block(b.data(), b.size(), 4), "the block holds 3 frames, its row says 4"));
    b[0] = 2;
    CHECK(contains(check_frame_block(b.data(), b.size(), 3), "block format 2, this seatmark reads format 1"));
    b[0] = 1;
    b[1] = 64;
    CHECK(contains(check_frame_block(b.data(), b.size(), 3), "records of 64 bytes"));
}

TEST_CASE("store: frames stored in blocks read back exactly: per session, by time range, counted") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    write_run(db, 50, 60);
    {
        Db raw(db, SQLITE_OPEN_READONLY);
        CHECK(raw.pragma_int("user_version") == 4);
        // One row per message; session 1's 9000 frames split at 4096.
        CHECK(one(raw, "SELECT count(*) FROM frame_blocks WHERE session_id = 0") == 50);
        CHECK(one(raw, "SELECT count(*) FROM frame_blocks WHERE session_id = 1") == 3);
        CHECK(one(raw, "SELECT max(frames) FROM frame_blocks") == 4096);
        CHECK(one(raw, "SELECT sum(frames) FROM frame_blocks") == 3000 + 9000);
        // The same rows through the `frames` table as schema 3 had it.
        CHECK(one(raw, "SELECT count(*) FROM frames") == 12000);
        CHECK(one(raw, "SELECT count(*) FROM frames WHERE session_id = 1 AND seq >= 4000 AND seq < 5000") == 1000);
        CHECK(one(raw, "SELECT sum(seq) FROM frames WHERE session_id = 0") == 2999LL * 3000 / 2);
    }
    StoreReader r(db);
    CHECK(r.schema_version() == 4);
    CHECK(r.frame_count() == 12000);
    CHECK(r.frame_count(0) == 3000);
    CHECK(r.frame_count(1) == 9000);
    const auto all = r.frames(1);
    const auto want = frames_of(0, 9000, 5'000'000'000);
    REQUIRE(all.size() == 9000);
    bool equal = true;
    for (size_t i = 0; i < all.size(); ++i) equal = equal && same(all[i], want[i]);
    CHECK(equal);
    // A range that starts and ends inside blocks: exactly the frames that began in it.
    const int64_t t0 = 1'000'000'000 + 130 * 16'000'000LL, t1 = 1'000'000'000 + 1234 * 16'000'000LL;
    const auto in = r.frames_in(0, t0, t1);
    REQUIRE(in.size() == 1234 - 130);
    CHECK(in.front().seq == 130);
    CHECK(in.back().seq == 1233);
    CHECK(r.frames_in(0, t1, t1).empty());
    CHECK(r.frames_in(1, t0, t1).size() == 984);  // session 1 begins at 5 s: seq 0 .. 983 are before t1
    CHECK(r.frames(7).empty());
}

TEST_CASE("store: a version-3 file, frames as rows, still reads") {
    test::TempDir dir;
    const std::string db = dir.file("v3.db");
    {
        Db d(db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        d.exec(test::read_file(std::string(SEATMARK_SOURCE_DIR) + "/tests/fixtures/schema_v3.sql").c_str(), "v3 schema");
        d.exec("PRAGMA user_version = 3; PRAGMA application_id = 1397047636;"
               "INSERT INTO runs(id, plan_text, plan_path, tool_version, host, started_unix_ns, mono_origin_ns, status)"
               " VALUES(1, '', '', '0.3', 'h3', 1, 2, 'finished');"
               "INSERT INTO sessions(run_id, id, profile, pid, started_ns, host) VALUES(1, 0, 'p', 42, 10, 'h3');",
               "v3 rows");
        Stmt ins(d, "INSERT INTO frames(session_id, seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns, latency_ns, stretch,"
                    " mode, flags, begin_interval_ns, t_present_ns) VALUES(0, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
        for (const FrameRecord& f : frames_of(0, 100)) {
            ins.bind_int(1, static_cast<int64_t>(f.seq)).bind_int(2, f.t_begin_ns).bind_int(3, f.cpu_ns).bind_int(4, f.gpu_ns);
            ins.bind_int(5, f.interval_ns).bind_int(6, f.latency_ns).bind_int(7, f.stretch).bind_int(8, f.mode);
            ins.bind_int(9, f.flags).bind_int(10, f.begin_interval_ns).bind_int(11, f.t_present_ns).run();
        }
        d.exec(index_sql(3), "v3 indexes");
    }
    StoreReader r(db);
    CHECK(r.schema_version() == 3);
    CHECK(r.frame_count() == 100);
    CHECK(r.frame_count(0) == 100);
    const auto all = r.frames(0);
    REQUIRE(all.size() == 100);
    CHECK(same(all[57], frames_of(0, 100)[57]));
    CHECK(r.frames_in(0, 1'000'000'000 + 10 * 16'000'000LL, 1'000'000'000 + 20 * 16'000'000LL).size() == 10);
}

TEST_CASE("store: a damaged frame block is refused naming the file, the block and the session") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    write_run(db, 3, 10);
    int64_t block = 0;
    {
        Db raw(db, SQLITE_OPEN_READONLY);
        block = one(raw, "SELECT max(rowid) FROM frame_blocks WHERE session_id = 0");
    }
    damage(db, block, [](std::vector<unsigned char>& b) { b.resize(b.size() - 5); });
    std::string err = frames_error(db, 0);
    CAPTURE(err);
    CHECK(contains(err, db + ": "));
    CHECK(contains(err, "frame block " + std::to_string(block) + " (session 0): records are 723 bytes, 10 frames need 728"));
    CHECK(contains(err, "the file is damaged"));
    // The other session and the counts (from the rows) still read.
    StoreReader r(db);
    CHECK(r.frames(1).size() == 9000);
    CHECK(r.frame_count(0) == 30);

    damage(db, block, [](std::vector<unsigned char>& b) {
        b.resize(8 + 72 * 10);
        b[0] = 9;
    });
    err = frames_error(db, 0);
    CAPTURE(err);
    CHECK(contains(err, "frame block " + std::to_string(block) + " (session 0): block format 9, this seatmark reads format 1"));
}

TEST_CASE("store: during the run a session's frames of a window read through the blocks' index") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    StoreWriter w = StoreWriter::open(db);
    w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h", .started_unix_ns = 1, .mono_origin_ns = 0});
    for (int s = 0; s < 8; ++s) w.add_session({.id = s, .profile = "p", .pid = 10 + s, .device = {}, .started_ns = 1, .host = ""});
    for (int m = 0; m < 40; ++m)
        for (int s = 0; s < 8; ++s) w.add_frames(s, frames_of(static_cast<uint64_t>(m) * 60, 60));
    w.flush();  // the writer is alive: the other indexes do not exist yet
    {
        Db raw(db, SQLITE_OPEN_READONLY);
        CHECK(one(raw, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'frame_blocks_by_session'") == 1);
        CHECK(one(raw, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'samples_by_metric'") == 0);
        Stmt plan(raw, "EXPLAIN QUERY PLAN SELECT rowid, session_id, frames, records FROM frame_blocks WHERE 1"
                       " AND session_id = ? AND t_begin_max_ns >= ? AND t_begin_min_ns <= ? ORDER BY session_id, t_begin_max_ns");
        std::string steps;
        while (plan.step()) steps += plan.col_text(3) + "\n";
        CAPTURE(steps);
        CHECK(contains(steps, "USING INDEX frame_blocks_by_session (session_id=? AND t_begin_max_ns>?)"));
        CHECK_FALSE(contains(steps, "TEMP B-TREE"));
    }
    StoreReader r(db);
    const int64_t t0 = 1'000'000'000 + 1000 * 16'000'000LL, t1 = 1'000'000'000 + 1500 * 16'000'000LL;
    const auto in = r.frames_in(5, t0, t1);
    REQUIRE(in.size() == 500);
    CHECK(in.front().seq == 1000);
    CHECK(in.back().seq == 1499);
    CHECK(r.frame_count(5) == 2400);
    w.finish();
}

TEST_CASE("store: the reader decodes a session's blocks itself and reads exactly what the frames table reads") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    {
        StoreWriter w = StoreWriter::open(db);
        w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h", .started_unix_ns = 1, .mono_origin_ns = 0});
        for (int s = 0; s < 3; ++s) w.add_session({.id = s, .profile = "p", .pid = 10 + s, .device = {}, .started_ns = 1, .host = ""});
        for (int m = 0; m < 12; ++m)
            for (int s = 0; s < 3; ++s) w.add_frames(s, frames_of(static_cast<uint64_t>(m) * 50, 50));
        // Session 1's last message came late and began earlier than the one before it (a clock
        // step): its blocks are not in seq order by time, and the result must still be by seq.
        auto late = frames_of(600, 50);
        for (auto& f : late) f.t_begin_ns -= 300 * 16'000'000LL;
        w.add_frames(1, late);
        w.add_frames(1, frames_of(650, 5000));  // split into blocks of frame_block_max_frames
        w.end_run(RunStatus::finished, 2, 0);
        w.finish();
    }
    StoreReader r(db);
    Db raw(db, SQLITE_OPEN_READONLY);
    auto through_table = [&](int session, const char* where, int64_t t0, int64_t t1) {
        Stmt s(raw, std::string("SELECT seq, t_begin_ns, cpu_ns, gpu_ns, interval_ns, latency_ns, stretch, mode, flags, "
                                "begin_interval_ns, t_present_ns FROM frames WHERE session_id = ?1") + where + " ORDER BY seq");
        s.bind_int(1, session);
        if (*where) s.bind_int(2, t0).bind_int(3, t1);
        std::vector<FrameRecord> out;
        while (s.step()) {
            FrameRecord f;
            f.seq = static_cast<uint64_t>(s.col_int(0));
            f.t_begin_ns = s.col_int(1);
            f.cpu_ns = s.col_int(2);
            f.gpu_ns = s.col_int(3);
            f.interval_ns = s.col_int(4);
            f.latency_ns = s.col_int(5);
            f.stretch = static_cast<uint32_t>(s.col_int(6));
            f.mode = static_cast<uint16_t>(s.col_int(7));
            f.flags = static_cast<uint16_t>(s.col_int(8));
            f.begin_interval_ns = s.col_int(9);
            f.t_present_ns = s.col_int(10);
            out.push_back(f);
        }
        return out;
    };
    auto agree = [](const std::vector<FrameRecord>& a, const std::vector<FrameRecord>& b) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (!same(a[i], b[i])) return false;
        return true;
    };
    const int64_t base = 1'000'000'000, step = 16'000'000;
    for (int s = 0; s < 3; ++s) {
        CAPTURE(s);
        const auto all = r.frames(s);
        CHECK(agree(all, through_table(s, "", 0, 0)));
        CHECK(all.size() == (s == 1 ? 5650u : 600u));
        // Ranges on frame boundaries (t0 in, t1 out), inside blocks, across the late message,
        // empty and reversed.
        const std::pair<int64_t, int64_t> ranges[] = {{base, base + 600 * step},
                                                      {base + 49 * step, base + 51 * step},
                                                      {base + 300 * step, base + 700 * step},
                                                      {base + 10 * step + 1, base + 4700 * step - 1},
                                                      {base + 5 * step, base + 5 * step},
                                                      {base + 9 * step, base + 3 * step},
                                                      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}};
        for (const auto& [t0, t1] : ranges) {
            CAPTURE(t0);
            CAPTURE(t1);
            const auto in = r.frames_in(s, t0, t1);
            CHECK(agree(in, through_table(s, " AND t_begin_ns >= ?2 AND t_begin_ns < ?3", t0, t1)));
            for (size_t i = 1; i < in.size(); ++i) CHECK(in[i - 1].seq < in[i].seq);
        }
    }
    CHECK(r.frames_in(1, base + 300 * step, base + 350 * step).size() == 100);  // seq 300..349 and the late 600..649
    CHECK(r.frames(7).empty());
}
