// What happens when writing goes wrong: a full file mid-run, and kill -9 of the writing process.
#include <doctest/doctest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::store;

namespace {

std::vector<FrameRecord> frames_from(uint64_t first_seq, size_t n) {
    std::vector<FrameRecord> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i].seq = first_seq + i;
        v[i].t_begin_ns = static_cast<int64_t>(first_seq + i) * 16'000'000;
        v[i].cpu_ns = 12345;
    }
    return v;
}

// Each session's stored seqs are exactly 0..n-1.
bool prefix_consistent(const std::vector<FrameRecord>& frames) {
    for (size_t i = 0; i < frames.size(); ++i)
        if (frames[i].seq != i) return false;
    return true;
}

}  // namespace

TEST_CASE("store: a full file is reported, not silent, and every frame is stored or counted dropped") {
    test::TempDir dir;
    const std::string path = dir.file("full.db");
    // 150 pages of 4 KiB cap the file like a full disk would (a commit of 2000 frames in blocks
    // of 100 takes about 40: some commits fit, the rest do not).
    StoreWriter w = StoreWriter::open(path, {.commit_rows = 2000, .max_page_count = 150});
    w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h"});
    w.add_session({.id = 1, .profile = "p", .pid = 1, .device = {}, .started_ns = 0});
    uint64_t sent = 0;
    for (int b = 0; b < 400; ++b) {
        w.add_frames(1, frames_from(sent, 100));
        sent += 100;
    }
    std::string flush_error;
    try {
        w.flush();
    } catch (const StoreError& e) {
        flush_error = e.what();
        CHECK(e.code == SQLITE_FULL);
    }
    CAPTURE(flush_error);
    CHECK(flush_error.find("full.db: storing frames: database or disk is full") != std::string::npos);
    REQUIRE(w.error());
    CHECK(*w.error() == flush_error);
    CHECK(w.frames_stored() > 0);
    CHECK(w.frames_dropped() > 0);
    CHECK(w.frames_stored() + w.frames_dropped() == sent);
    w.add_frames(1, frames_from(sent, 10));  // after the failure: dropped, counted
    sent += 10;
    CHECK_THROWS_AS(w.finish(), StoreError);
    CHECK(w.frames_stored() + w.frames_dropped() == sent);

    // What was committed before the failure is intact and readable.
    StoreReader r(path);
    CHECK(r.integrity_ok());
    CHECK(r.frame_count() == w.frames_stored());
    CHECK(prefix_consistent(r.frames(1)));
    CHECK(r.effective_status() == RunStatus::crashed);
}

TEST_CASE("store: after kill -9 of the writer the file is consistent and says the run did not finish") {
    test::TempDir dir;
    const std::string path = dir.file("killed.db");
    constexpr int sessions = 3;
    constexpr int batch = 64;
    constexpr int batches_before_signal = 300;

    int ready[2];
    REQUIRE(pipe(ready) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // The child: a writer that never stops. Only _exit() leaves this block.
        close(ready[0]);
        try {
            StoreWriter w = StoreWriter::open(path, {.commit_interval = std::chrono::milliseconds(5),
                                                     .commit_rows = 1000});
            w.begin_run({.plan_text = "x", .plan_path = "", .tool_version = "t", .host = "h"});
            for (int s = 1; s <= sessions; ++s)
                w.add_session({.id = s, .profile = "p", .pid = getpid(), .device = {}, .started_ns = 0});
            uint64_t seq = 0;
            for (int b = 0;; ++b) {
                for (int s = 1; s <= sessions; ++s) w.add_frames(s, frames_from(seq, batch));
                w.add_sample({.t_ns = b, .session_id = std::nullopt, .source = "proc", .metric = "m", .value = 1});
                seq += batch;
                if (b == batches_before_signal) {
                    w.flush();  // at least this much is committed before the parent kills us
                    if (write(ready[1], "r", 1) != 1) _exit(3);
                }
                while (w.queue_depth() > 50000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        } catch (...) {
            _exit(2);
        }
        _exit(4);
    }
    close(ready[1]);
    pollfd pfd{ready[0], POLLIN, 0};
    int polled = poll(&pfd, 1, 60'000);
    char byte = 0;
    bool signalled = polled == 1 && read(ready[0], &byte, 1) == 1;
    close(ready[0]);
    if (signalled) std::this_thread::sleep_for(std::chrono::milliseconds(150));  // mid-way through more batches
    kill(child, SIGKILL);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(signalled);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);

    StoreReader r(path);
    CHECK(r.integrity_ok());
    CHECK_FALSE(r.writer_alive());
    CHECK(r.run().status == RunStatus::running);  // as stored
    CHECK(r.effective_status() == RunStatus::crashed);
    CHECK(describe(r.effective_status()) == "did not finish (crashed)");
    REQUIRE(r.sessions().size() == sessions);
    uint64_t total = 0;
    for (int s = 1; s <= sessions; ++s) {
        auto frames = r.frames(s);
        CAPTURE(s);
        CHECK(frames.size() >= uint64_t{batches_before_signal + 1} * batch);  // everything flushed is there
        CHECK(frames.size() % batch == 0);  // whole batches only
        CHECK(prefix_consistent(frames));
        total += frames.size();
    }
    CHECK(r.frame_count() == total);
    MESSAGE("frames stored before kill -9: " << total);

    // The reader built the indexes the dead writer never did; a second open finds them.
    Db raw(path, SQLITE_OPEN_READONLY);
    Stmt idx(raw, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_%'");
    REQUIRE(idx.step());
    CHECK(idx.col_int(0) == 3);
}

// Issue 35, cause 3: the writer went on writing a file that no path reached any more, and its
// close lost everything. Now it says so (path_lost) and keeps a copy under a new name as it finishes.
TEST_CASE("store: the database's folder removed, or its file replaced, while writing: said, and everything kept in a new file") {
    test::TempDir dir;
    SUBCASE("the folder removed") {
        std::filesystem::create_directories(dir.file("out"));
        const std::string path = dir.file("out") + "/run.db";
        StoreWriter w = StoreWriter::open(path);
        w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h"});
        w.add_session({.id = 1, .profile = "p", .pid = 1, .device = {}, .started_ns = 0});
        w.add_frames(1, frames_from(0, 100));
        w.flush();
        CHECK_FALSE(w.path_lost().has_value());
        std::filesystem::remove_all(dir.file("out"));
        w.add_frames(1, frames_from(100, 50));  // after the removal: kept too
        w.end_run(RunStatus::aborted);
        const auto loss = w.path_lost();
        REQUIRE(loss.has_value());
        CHECK(loss->what.find(path + " is gone: its folder " + dir.file("out") + " was removed") != std::string::npos);
        REQUIRE_FALSE(loss->keep.empty());  // the working folder, or $TMPDIR
        struct Remove {
            std::string path;
            ~Remove() { std::error_code ec; std::filesystem::remove(path, ec); }
        } remove_kept{loss->keep};
        CHECK(loss->keep.find("run.rescued-") != std::string::npos);
        CHECK(std::filesystem::file_size(loss->keep) == 0);  // reserved, not yet written
        w.finish();
        CHECK(w.kept_at() == loss->keep);
        StoreReader r(loss->keep);
        CHECK(r.integrity_ok());
        CHECK(r.frame_count() == 150);
        CHECK(prefix_consistent(r.frames(1)));
        CHECK(r.effective_status() == RunStatus::aborted);
    }
    SUBCASE("the file replaced by another: that one is left alone, the copy goes beside it") {
        const std::string path = dir.file("run.db");
        StoreWriter w = StoreWriter::open(path);
        w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "h"});
        w.add_session({.id = 1, .profile = "p", .pid = 1, .device = {}, .started_ns = 0});
        w.add_frames(1, frames_from(0, 100));
        w.flush();
        test::write_file(dir.file("other"), "another file");
        std::filesystem::rename(dir.file("other"), path);
        const auto loss = w.path_lost();
        REQUIRE(loss.has_value());
        CHECK(loss->what.find(path + " now names another file") != std::string::npos);
        CHECK(loss->keep.rfind(dir.path + "/run.rescued-", 0) == 0);
        w.finish();
        CHECK(test::read_file(path) == "another file");
        StoreReader r(w.kept_at());
        CHECK(r.frame_count() == 100);
    }
}
