// report/frame_scan on schema 4's frame blocks: every frame of every session, in parallel parts,
// exactly as stored; a damaged block fails the scan naming the file, the block and the session.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "report/frame_scan.h"
#include "store/sqlite_handle.h"
#include "store/store_writer.h"
#include "tests/support/process.h"

using namespace seatmark;

namespace {

// Sessions 0..3, each `messages` messages of 120 frames (more than the 200000 frames that make
// the scan use several parts).
void write_run(const std::string& db, int messages) {
    store::StoreWriter w = store::StoreWriter::open(db);
    w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h", .started_unix_ns = 1, .mono_origin_ns = 0});
    for (int s = 0; s < 4; ++s) w.add_session({.id = s, .profile = "p", .pid = 10 + s, .device = {}, .started_ns = 1, .host = ""});
    for (int m = 0; m < messages; ++m)
        for (int s = 0; s < 4; ++s) {
            std::vector<FrameRecord> v(120);
            for (size_t i = 0; i < v.size(); ++i) {
                v[i].seq = static_cast<uint64_t>(m) * 120 + i;
                v[i].t_begin_ns = static_cast<int64_t>(v[i].seq) * 16'000'000 + s;
                v[i].cpu_ns = s * 1000 + static_cast<int64_t>(i);
                v[i].interval_ns = 16'000'000;
            }
            w.add_frames(s, std::move(v));
        }
    w.end_run(store::RunStatus::finished, 2, 0);
    w.finish();
}

}  // namespace

TEST_CASE("report: the frame scan reads every frame of schema 4's blocks in order, in parallel parts") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    write_run(db, 500);  // 4 x 60000 frames
    report::FrameScanOptions o;
    o.threads = 4;
    const auto frames = report::scan_frames(db, o);
    REQUIRE(frames.size() == 4);
    for (const auto& [id, v] : frames) {
        REQUIRE(v.size() == 60000);
        bool ordered = true;
        for (size_t i = 0; i < v.size(); ++i)
            ordered = ordered && v[i].seq == i && v[i].cpu_ns == id * 1000 + static_cast<int64_t>(i % 120);
        CHECK(ordered);
    }
}

TEST_CASE("report: the frame scan refuses a damaged frame block naming the file, the block and the session") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    write_run(db, 3);
    {
        store::Db d(db, SQLITE_OPEN_READWRITE);
        d.exec("UPDATE frame_blocks SET records = substr(records, 1, 100) WHERE rowid = 6", "test");
    }
    std::string err;
    try {
        (void)report::scan_frames(db);
    } catch (const std::exception& e) {
        err = e.what();
    }
    CAPTURE(err);
    CHECK(err.find(db + ": frame block 6 (session 1): records are 100 bytes, 120 frames need 8648: the file is damaged") !=
          std::string::npos);
}
