// The Windows build under Wine on lavapipe: the GPU-less unit tests as Windows executables, and
// `seatmark.exe session` rendering ci-tiny headless (CSV with frames, PNG with the scene, the
// logon line, the software renderer caught). Few and short: Wine starts slowly.
#include <doctest/doctest.h>

#include <set>
#include <sstream>

#include "image/png.h"
#include "tests/wine/wine.h"

using namespace seatmark;
namespace wine = seatmark::test::wine;

TEST_CASE("the GPU-less unit tests pass as a Windows executable") {
    auto r = wine::run("seatmark-unit-tests.exe", {});
    INFO(r.out, r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Status: SUCCESS") != std::string::npos);
    CHECK(r.out.find("0 failed") != std::string::npos);
}

TEST_CASE("the Windows agent's per-session CPU counts every thread of a child of known CPU use") {
    // tests/windows/test_process_cpu_windows.cpp: busy-threads.exe spins 2 threads to 1.5 s of CPU
    // each; Wine's GetProcessTimes of another process counts only its main thread (0.09 s for such
    // a child), so the agent sums the threads' times.
    auto r = wine::run("seatmark-unit-tests.exe", {"-tc=a process's CPU time counts every thread*", "-s"});
    INFO(r.out, r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("busy threads' own CPU") != std::string::npos);
    CHECK(r.out.find("Status: SUCCESS") != std::string::npos);
}

TEST_CASE("seatmark.exe session renders ci-tiny on lavapipe, same CSV and PNG") {
    test::TempDir dir;
    const std::string csv = dir.file("frames.csv"), png = dir.file("shot.png");
    auto r = wine::run("seatmark.exe", {"session", "--workload", "ci-tiny", "--duration", "2s", "--out",
                                        wine::win_path(csv), "--screenshot", wine::win_path(png)});
    INFO(r.out, r.err);
    REQUIRE(r.exit_code == 0);
    // lavapipe through Wine's winevulkan, caught as a software renderer by the one rule.
    CHECK(r.out.find("llvmpipe") != std::string::npos);
    CHECK(r.out.find("** SOFTWARE RENDERER **") != std::string::npos);
    CHECK(r.err.find("is a SOFTWARE renderer") != std::string::npos);
    // The logon it ran in, from the WTS API (Wine answers for a console session).
    CHECK(r.out.find("logon id=") != std::string::npos);
    CHECK(r.out.find("protocol=console") != std::string::npos);

    std::istringstream lines(test::read_file(csv));
    std::string header, line;
    std::getline(lines, header);
    CHECK(header == "seq,t_begin_ns,t_present_ns,cpu_ns,gpu_ns,interval_ns,begin_interval_ns,latency_ns,stretch,mode,flags");
    int frames = 0;
    int64_t last_present = 0;
    while (std::getline(lines, line)) {
        ++frames;
        std::istringstream f(line);
        std::string seq, begin, present;
        std::getline(f, seq, ',');
        std::getline(f, begin, ',');
        std::getline(f, present, ',');
        CHECK(std::stoll(present) >= std::stoll(begin));
        CHECK(std::stoll(present) >= last_present);  // one monotonic clock (QueryPerformanceCounter)
        last_present = std::stoll(present);
    }
    CHECK(frames >= 10);  // 2 s on lavapipe under Wine; a sanity bound, not a rate

    const image::Pixels shot = image::read_png(png);
    CHECK(shot.width == 480);
    CHECK(shot.height == 360);
    // The scene, not a cleared target: many colours (parts, shading, edges) and most pixels
    // differ from the top-left corner's background.
    std::set<uint32_t> colours;
    size_t differ = 0;
    const uint8_t* bg = shot.rgba.data();
    for (size_t i = 0; i + 3 < shot.rgba.size(); i += 4) {
        const uint8_t* p = shot.rgba.data() + i;
        colours.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
        if (std::abs(p[0] - bg[0]) + std::abs(p[1] - bg[1]) + std::abs(p[2] - bg[2]) > 30) ++differ;
    }
    CHECK(colours.size() > 200);
    CHECK(differ > shot.width * shot.height / 10);
}

TEST_CASE("a bad option fails the Windows session with the same message and exit code") {
    auto r = wine::run("seatmark.exe", {"session", "--workload", "no-such-profile", "--duration", "1s"});
    INFO(r.out, r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("no-such-profile") != std::string::npos);
}
