// The one script player on both frame sinks, in process: present-to-present intervals
// within stretches, the frame cap on absolute deadlines, FPS over real active time,
// and a slow session stopping within one frame of its duration.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "client/session.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

// One profile: a tiny scene; `segments` is TOML for [[script.segment]] entries.
std::string profile(const TempDir& dir, double cap_hz, const std::string& segments, uint64_t triangles = 10000,
                    int width = 160, int height = 120) {
    std::string path = dir.file("p.toml");
    write_file(path, "name = \"player-test\"\ndescription = \"script player test\"\nduration = \"3s\"\n"
                     "[scene]\nseed = 3\ntriangles = " + std::to_string(triangles) +
                         "\n[render]\nwidth = " + std::to_string(width) + "\nheight = " + std::to_string(height) + "\nmsaa = 1\nmode = \"shaded\"\nframe_cap_hz = " +
                         std::to_string(cap_hz) + "\n[script]\nloop = true\ninput_rate_hz = 125\n" + segments);
    return path;
}

const std::string one_orbit = "[[script.segment]]\nkind = \"orbit\"\nduration = \"100s\"\nrate = 30\n";
const std::string with_pauses =
    "[[script.segment]]\nkind = \"orbit\"\nduration = \"700ms\"\nrate = 30\n"
    "[[script.segment]]\nkind = \"mode\"\nto = \"wireframe\"\n"
    "[[script.segment]]\nkind = \"think\"\nduration = \"600ms\"\n";

// Frames per second between the first and the last present of one stretch.
double present_rate(const std::vector<FrameRecord>& f) {
    REQUIRE(f.size() > 10);
    return double(f.size() - 1) / (double(f.back().t_present_ns - f.front().t_present_ns) * 1e-9);
}

void check_intervals(const std::vector<FrameRecord>& frames) {
    for (size_t i = 0; i < frames.size(); ++i) {
        const auto& f = frames[i];
        CAPTURE(i);
        CHECK(f.t_present_ns >= f.t_begin_ns);
        CHECK(f.cpu_ns >= 0);
        CHECK(f.cpu_ns <= f.t_present_ns - f.t_begin_ns);  // begin -> submit returned, before the present
        if (i == 0 || frames[i - 1].stretch != f.stretch) {
            CHECK((f.flags & frame_flag_stretch_start) != 0);
            CHECK(f.interval_ns == -1);  // never across a think pause
            CHECK(f.begin_interval_ns == -1);
        } else {
            CHECK(f.interval_ns == f.t_present_ns - frames[i - 1].t_present_ns);  // present to present
            CHECK(f.begin_interval_ns == f.t_begin_ns - frames[i - 1].t_begin_ns);
        }
    }
}

}  // namespace

TEST_CASE("script player: a 60 Hz cap delivers 60 frames per second (synthetic and Vulkan)") {
    TempDir dir;
    client::SessionOptions o;
    o.quiet = true;
    o.duration_s = 4;
    SUBCASE("synthetic sink") {
        o.workload = profile(dir, 0, one_orbit);
        o.synthetic_fps = 60;
    }
    // Frames are fast (a tiny scene): the cap, not the renderer, sets the rate.
    SUBCASE("Vulkan sink, headless") { o.workload = profile(dir, 60, one_orbit, 1000, 64, 48); }
    auto r = client::run_session(o);
    double rate = present_rate(r.frames);
    INFO("present rate " << rate << " FPS, summary FPS " << r.summary.fps);
    // The cap is never exceeded, however the machine is loaded (absolute deadlines, no bursts
    // after a stall). How close to 60.0 it comes depends on the load of the machine the test
    // runs on (56 and 52 FPS were seen here beside four parallel builds), so below the cap only
    // a sanity bound is checked; 59.96/s (idle, 6 s) is a measured figure, not a test threshold.
    CHECK(rate < 60.5);
    CHECK(rate > 40.0);
    CHECK(r.summary.fps < 61.0);
    CHECK(r.summary.fps > 40.0);
    check_intervals(r.frames);
}

TEST_CASE("script player: intervals are present to present within a stretch, begin to begin kept beside") {
    TempDir dir;
    client::SessionOptions o;
    o.quiet = true;
    o.duration_s = 3;
    o.workload = profile(dir, 0, with_pauses);
    SUBCASE("Vulkan sink, headless") {}
    SUBCASE("synthetic sink, uncapped with CPU per frame") { o.synthetic_cpu_ms = 2; }
    auto r = client::run_session(o);
    REQUIRE(r.frames.size() > 20);
    check_intervals(r.frames);
    CHECK(r.frames.back().stretch >= 2);  // two think pauses passed
    int64_t longest = 0;
    for (const auto& f : r.frames) longest = std::max(longest, f.interval_ns);
    CHECK(longest < 500'000'000);  // no interval spans the 600 ms pauses
    // FPS is frames over the real active time (two and a bit stretches of 0.7 s), not over the wall time.
    CHECK(r.summary.active_s < r.wall_s);
    CHECK(r.summary.active_s > 1.0);
    CHECK(r.summary.fps == doctest::Approx(double(r.frames.size()) / r.summary.active_s));
}

TEST_CASE("script player: a slow session stops within one frame of its duration and its FPS is the real rate") {
    TempDir dir;
    client::SessionOptions o;
    o.quiet = true;
    o.duration_s = 1.5;
    o.workload = profile(dir, 0, one_orbit);
    o.synthetic_cpu_ms = 400;  // each frame 0.4 s of CPU: about 2.5 FPS at best
    auto r = client::run_session(o);
    REQUIRE(!r.frames.empty());
    int64_t slowest = 0;
    for (const auto& f : r.frames) slowest = std::max(slowest, f.t_present_ns - f.t_begin_ns);
    INFO("wall " << r.wall_s << " s, frames " << r.frames.size() << ", slowest " << slowest * 1e-9 << " s");
    CHECK(r.wall_s <= 1.5 + slowest * 1e-9 + 0.2);
    for (const auto& f : r.frames) CHECK(f.cpu_ns >= 400'000'000);
    CHECK(r.summary.fps <= 2.6);  // frames over real active time, not over scripted time
    CHECK(r.summary.fps == doctest::Approx(double(r.frames.size()) / r.summary.active_s));
    CHECK(r.summary.active_s >= 0.4 * double(r.frames.size()) * 0.9);
}

TEST_CASE("script player: a frame cap whose next frame falls after the session's end does not wait past the end") {
    // Issue 35: frame_cap_hz = 0.01 waited 100 s for its second frame whatever --duration said.
    // The lowest cap now allowed (1 Hz) against a 0.3 s session: one frame, then the end.
    TempDir dir;
    client::SessionOptions o;
    o.quiet = true;
    o.duration_s = 0.3;
    o.workload = profile(dir, 0, one_orbit);
    o.synthetic_fps = 1;
    auto r = client::run_session(o);
    INFO("wall " << r.wall_s << " s, " << r.frames.size() << " frames");
    CHECK(r.frames.size() == 1);
    CHECK(r.wall_s < 0.9);  // the cap's next deadline is 1 s after the first frame; the end is at 0.3 s
}
