// Writes the fuzz targets' seed corpora from the same encoders and writers the tests use:
// wire messages of every type, live API documents as the orchestrator serves them, and a small
// finished run database (tests/monitor/synthetic_db.h). Text seeds (plans, profiles,
// references) are copied from the repository by scripts/fuzz.sh.
// Usage: fuzz_make_seeds OUT_DIR   (writes OUT_DIR/<target>/*)
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include <sqlite3.h>

#include "common/wire_protocol.h"
#include "core/live_json.h"
#include "core/plan.h"
#include "tests/monitor/synthetic_db.h"

using namespace seatmark;
namespace fs = std::filesystem;

namespace {
void put(const fs::path& dir, const std::string& name, const std::string& bytes) {
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary) << bytes;
}
std::string str(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

uint64_t le(const std::string& b, size_t at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<unsigned char>(b[at + size_t(i)])) << (8 * i);
    return v;
}

// Cuts every frame block of `path` to its first `keep` frames (store/frame_block.h's format).
void cut_blocks(const fs::path& path, uint32_t keep) {
    sqlite3* conn = nullptr;
    sqlite3_stmt* get = nullptr;
    sqlite3_stmt* set = nullptr;
    if (sqlite3_open(path.c_str(), &conn) == SQLITE_OK &&
        sqlite3_prepare_v2(conn, "SELECT rowid, records FROM frame_blocks WHERE frames > ?1", -1, &get, nullptr) == SQLITE_OK &&
        sqlite3_prepare_v2(conn, "UPDATE frame_blocks SET records = ?2, frames = ?3, last_seq = ?4, t_begin_max_ns = ?5"
                                 " WHERE rowid = ?1", -1, &set, nullptr) == SQLITE_OK) {
        sqlite3_exec(conn, "BEGIN", nullptr, nullptr, nullptr);
        sqlite3_bind_int(get, 1, static_cast<int>(keep));
        while (sqlite3_step(get) == SQLITE_ROW) {
            std::string b(static_cast<const char*>(sqlite3_column_blob(get, 1)), static_cast<size_t>(sqlite3_column_bytes(get, 1)));
            b.resize(8 + 72 * size_t(keep));
            for (int i = 0; i < 4; ++i) b[4 + size_t(i)] = static_cast<char>(keep >> (8 * i));
            const size_t last = 8 + 72 * size_t(keep - 1);
            sqlite3_bind_int64(set, 1, sqlite3_column_int64(get, 0));
            sqlite3_bind_blob(set, 2, b.data(), static_cast<int>(b.size()), SQLITE_TRANSIENT);
            sqlite3_bind_int(set, 3, static_cast<int>(keep));
            sqlite3_bind_int64(set, 4, static_cast<sqlite3_int64>(le(b, last, 8)));
            sqlite3_bind_int64(set, 5, static_cast<sqlite3_int64>(le(b, last + 8, 8)));
            sqlite3_step(set);
            sqlite3_reset(set);
        }
        sqlite3_exec(conn, "COMMIT", nullptr, nullptr, nullptr);
    }
    sqlite3_finalize(get);
    sqlite3_finalize(set);
    sqlite3_close(conn);
}

// A copy of `from` whose first frame block's records `edit` changed.
template <class Edit>
void damaged_block(const fs::path& from, const fs::path& to, Edit edit) {
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    sqlite3* conn = nullptr;
    sqlite3_stmt* get = nullptr;
    sqlite3_stmt* set = nullptr;
    if (sqlite3_open(to.c_str(), &conn) == SQLITE_OK &&
        sqlite3_prepare_v2(conn, "SELECT rowid, records FROM frame_blocks ORDER BY rowid LIMIT 1", -1, &get, nullptr) == SQLITE_OK &&
        sqlite3_step(get) == SQLITE_ROW &&
        sqlite3_prepare_v2(conn, "UPDATE frame_blocks SET records = ?2 WHERE rowid = ?1", -1, &set, nullptr) == SQLITE_OK) {
        std::string b(static_cast<const char*>(sqlite3_column_blob(get, 1)), static_cast<size_t>(sqlite3_column_bytes(get, 1)));
        edit(b);
        sqlite3_bind_int64(set, 1, sqlite3_column_int64(get, 0));
        sqlite3_bind_blob(set, 2, b.data(), static_cast<int>(b.size()), SQLITE_TRANSIENT);
        sqlite3_step(set);
    }
    sqlite3_finalize(get);
    sqlite3_finalize(set);
    sqlite3_close(conn);
}
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    const fs::path out = argv[1];

    // ---- wire: one message of each type, and a whole session's stream; first byte = read size.
    wire::Hello h;
    h.session_id = 3;
    h.pid = 1234;
    h.profile = "ci-tiny";
    h.device_name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    h.device_type = "cpu";
    h.software = true;
    h.width = 640, h.height = 480, h.msaa = 4;
    wire::Frames fr;
    for (uint64_t i = 0; i < 8; ++i) {
        FrameRecord f;
        f.seq = i;
        f.t_begin_ns = 1'000'000'000 + int64_t(i) * 16'666'667;
        f.interval_ns = i ? 16'666'667 : -1;
        fr.frames.push_back(f);
    }
    wire::Heartbeat hb{2'000'000'000, 8};
    wire::Event ev{2'000'000'100, wire::EventKind::warning, "swapchain recreated"};
    wire::Bye bye;
    bye.frames_sent = 8;
    bye.fps = 60, bye.p95_ms = 16.7, bye.message = "done";
    std::vector<uint8_t> all;
    const std::vector<wire::Message> msgs = {h, fr, hb, ev, bye};
    const char* names[] = {"hello", "frames", "heartbeat", "event", "bye"};
    for (size_t i = 0; i < msgs.size(); ++i) {
        std::vector<uint8_t> one;
        wire::encode(one, msgs[i]);
        wire::encode(all, msgs[i]);
        put(out / "wire", names[i], std::string(1, char(255)) + str(one));
    }
    put(out / "wire", "session", std::string(1, char(7)) + str(all));

    // ---- peer_input (fuzz_peer_input.cpp): 4 round trips putting the peer's clock on this one's,
    // the connection opened at 0.9 s and the stream arriving 2 s later, then the session's stream
    // as it is, with every FRAMES twice, and with a frame stamped near INT64_MIN.
    std::string clock;
    auto i64 = [&clock](int64_t v) { clock.append(reinterpret_cast<const char*>(&v), 8); };
    for (int64_t i = 0; i < 4; ++i) {
        i64(900'000'000 + i * 1'000'000);
        i64(900'000'000 + i * 1'000'000 + 50'000);
        i64(900'000'000 + i * 1'000'000 + 100'000);
    }
    i64(900'000'000);
    i64(2'000'000'000);
    put(out / "peer_input", "session", clock + str(all));
    std::vector<uint8_t> twice;
    for (const auto& m : msgs) {
        wire::encode(twice, m);
        if (std::holds_alternative<wire::Frames>(m)) wire::encode(twice, m);
    }
    put(out / "peer_input", "duplicates", clock + str(twice));
    wire::Frames wrapped = fr;
    wrapped.frames.back().t_begin_ns = INT64_MIN + 1;
    std::vector<uint8_t> bad;
    wire::encode(bad, wrapped);
    put(out / "peer_input", "int64-min", clock + str(bad));

    // ---- live JSON: a state with sessions, steps and events; a history; frames.
    core::LiveState s;
    s.plan = "seed";
    s.status = "running";
    s.started_unix_ns = 1'700'000'000'000'000'000;
    s.elapsed_s = 42;
    s.step = 2, s.steps = 3, s.target = 2, s.alive = 2;
    s.phase = "measuring";
    s.phase_left_s = 5;
    s.max_density_so_far = 1;
    s.finished_steps.push_back({0, 1, true, 60, 17, ""});
    for (uint32_t i = 0; i < 2; ++i) {
        core::LiveSession x;
        x.id = i;
        x.state = "running";
        x.fps = 60;
        x.p95_ms = 17;
        x.cpu_pct = 20;
        x.gpu_share_pct = NAN;
        s.sessions.push_back(x);
    }
    std::deque<core::LiveEvent> events;
    events.push_back({1, s.started_unix_ns + 1'000'000'000, core::StepBeginEvent{1, 3, 1}});
    events.push_back({2, s.started_unix_ns + 9'000'000'000, core::StepVerdictEvent{1, 1, true, 60, 17, ""}});
    events.push_back({3, s.started_unix_ns + 20'000'000'000, core::SessionEndEvent{1, "crash", true, "killed"}});
    events.push_back({4, s.started_unix_ns + 30'000'000'000, core::RunEndEvent{"aborted", "run.db"}});
    core::Plan plan = core::parse_plan(core::demo_plan_text(), "demo");
    auto state = core::state_json(s, 1'000'000'000, events, core::plan_json(plan));
    put(out / "live_json", "state.json", state.dump());
    std::deque<core::LiveHistoryPoint> hist;
    for (int i = 0; i < 5; ++i) {
        core::LiveState at = s;
        at.elapsed_s = i;
        at.step = 1 + i / 3;
        hist.push_back(core::history_point(at));
    }
    put(out / "live_json", "history.json", core::history_json(hist, -1, 1).dump());
    std::vector<core::LiveFrame> lf;
    for (uint64_t i = 0; i < 5; ++i) lf.push_back({i, 1'000'000'000 + int64_t(i) * 16'666'667, i ? 16.7 : NAN});
    put(out / "live_json", "frames.json", core::frames_json(1, 0, lf, 10000).dump());

    // ---- store: a small finished run.
    fs::create_directories(out / "store");
    const fs::path db = out / "store" / "synthetic.db";
    fs::remove(db);
    test::write_synthetic_db(db.string());
    // The same run cut to 12 frames a session (the first 12 of its first block), in 512-byte pages without
    // WAL: a few KiB, so far more mutations per second reach the reader's own code rather than SQLite's page checks.
    const fs::path small = out / "store" / "synthetic-512.db";
    fs::copy_file(db, small, fs::copy_options::overwrite_existing);
    sqlite3* conn = nullptr;
    cut_blocks(small, 12);
    if (sqlite3_open(small.c_str(), &conn) == SQLITE_OK)
        sqlite3_exec(conn, "PRAGMA journal_mode=DELETE; DELETE FROM frame_blocks WHERE first_seq >= 12; DELETE FROM samples WHERE rowid % 8 != 0;"
                     " PRAGMA page_size=512; VACUUM;", nullptr, nullptr, nullptr);
    sqlite3_close(conn);
    // Two damaged frame blocks (the reader names the file, the block and the session): records cut
    // short, and a format this seatmark does not know.
    damaged_block(small, out / "store" / "block-short.db", [](std::string& b) { b.resize(b.size() / 2); });
    damaged_block(small, out / "store" / "block-format.db", [](std::string& b) { b[0] = 7; });
    return 0;
}
