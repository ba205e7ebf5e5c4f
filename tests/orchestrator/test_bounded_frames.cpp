// The orchestrator's memory does not grow with a window's length (issue 16's soak): a session's
// frames are kept only for the live view (the last 10 s, orchestrator/recent_frames.h), and a
// window is judged from the frames the run's database holds, as the report judges it.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "orchestrator/recent_frames.h"
#include "store/store_reader.h"
#include "tests/orchestrator/http_test_client.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

std::string stderr_of(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/fd/2");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

FrameRecord frame_at(uint64_t seq, int64_t t_ns) {
    FrameRecord r;
    r.seq = seq;
    r.t_begin_ns = t_ns;
    return r;
}

}  // namespace

TEST_CASE("a frame stamped near either end of int64 neither wraps the live window nor runs past its newest frame") {
    // Issue 35: t_begin_ns - keep_ns wrapped for a stamp near INT64_MIN, every frame looked too old
    // and the loop ran past the end for ever (the orchestrator hung). Stamps are refused where they
    // arrive (core/peer_stamps.h); the window holds regardless.
    orchestrator::RecentFrames f;
    for (uint64_t i = 0; i < 5; ++i) f.add(frame_at(i, 1'000'000'000'000 + int64_t(i) * 16'000'000));
    f.add(frame_at(5, INT64_MIN + 1));
    CHECK(f.size() == 6);  // older than nothing it keeps: nothing dropped
    CHECK(f.rbegin()->seq == 5);
    f.add(frame_at(6, INT64_MAX));
    CHECK(f.size() == 1);  // everything else is more than 10 s before it
    CHECK(f.begin()->seq == 6);
    f.add(frame_at(7, INT64_MIN));
    CHECK(f.size() == 2);
}

TEST_CASE("a session's live frames are bounded by time and by count") {
    orchestrator::RecentFrames f;
    const int64_t ms = 1'000'000;
    for (uint64_t i = 0; i < 3000; ++i) f.add(frame_at(i, int64_t(i) * 10 * ms));  // 100 FPS for 30 s
    REQUIRE(!f.empty());
    CHECK(f.rbegin()->seq == 2999);
    CHECK(f.rbegin()->t_begin_ns - f.begin()->t_begin_ns == orchestrator::RecentFrames::keep_ns);  // 10 s kept
    CHECK(f.size() == 1001);
    orchestrator::RecentFrames fast;
    for (uint64_t i = 0; i < 50'000; ++i) fast.add(frame_at(i, int64_t(i) * 100'000));  // 10 kHz for 5 s
    CHECK(fast.size() == orchestrator::RecentFrames::keep_max);
    CHECK(fast.begin()->seq == 50'000 - orchestrator::RecentFrames::keep_max);
    fast.clear();
    CHECK(fast.empty());
}

TEST_CASE("a real run keeps 10 s of frames live and judges its longer window from the database") {
    TempDir dir;
    // One synthetic session at 200 FPS; a 13 s window is longer than the 10 s kept live.
    write_file(dir.file("plan.toml"),
               "name = \"bounded\"\n[run]\nheartbeat_timeout = \"5s\"\n"
               "[steps]\nlist = [1]\nsettle = \"1s\"\nwindow = \"13s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--listen",
                                         "127.0.0.1:0", "--session-args", "--synthetic-fps 200", "--quiet"}));
    uint16_t port = 0;
    REQUIRE(wait_until(30, [&] { return (port = port_in(stderr_of(run.pid()))) != 0; }));

    // The live API's /frames with the largest `max` serves every frame the run keeps of the session.
    int64_t widest_ns = 0;
    uint64_t most_kept = 0, received_then = 0;
    wait_until(60, [&] {
        auto r = http_get(port, "/api/v1/frames?session=0&max=10000");
        if (r.status != 200) return !run.running();
        auto j = nlohmann::json::parse(r.body);
        const auto& t = j["t_begin_ns"];
        if (t.size() >= 2) {
            const int64_t span = t.back().get<int64_t>() - t.front().get<int64_t>();
            if (span > widest_ns) widest_ns = span, received_then = j["next"].get<uint64_t>();
            most_kept = std::max<uint64_t>(most_kept, t.size());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        return false;
    });
    auto done = run.wait(60);
    INFO(done.out << done.err);
    REQUIRE(done.exit_code == 0);

    // The run kept the last 10 s (it really held that much: the test looked late enough), never more.
    INFO("widest span kept: " << double(widest_ns) * 1e-9 << " s, most frames kept: " << most_kept);
    CHECK(widest_ns <= orchestrator::RecentFrames::keep_ns);
    CHECK(widest_ns > orchestrator::RecentFrames::keep_ns * 8 / 10);
    CHECK(received_then > most_kept);

    // The window's verdict counted every frame of its 13 s, which the database holds and the
    // orchestrator no longer did when it judged.
    store::StoreReader db(dir.file("run.db"));
    const auto verdicts = db.verdicts();
    REQUIRE(!verdicts.empty());
    const store::VerdictRow& pooled = verdicts.front();
    CHECK(pooled.repeat == store::pooled_repeat);
    CHECK(pooled.sessions == 1);
    const auto in_window = db.frames_in(0, pooled.t0_ns, pooled.t1_ns);
    CHECK(pooled.frames == int64_t(in_window.size()));
    CHECK(uint64_t(pooled.frames) > most_kept);
    CHECK(double(pooled.t1_ns - pooled.t0_ns) > 1.2 * double(orchestrator::RecentFrames::keep_ns));
}
