// `seatmark monitor --screenshot`: the real binary renders a finished .db and a live
// run, under Xvfb (GLFW) and without any display (surfaceless EGL); the PNGs must show
// the tiles, plots and header where they belong, not a blank window.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "image/png.h"
#include "monitor/theme.h"
#include "tests/monitor/synthetic_db.h"
#include "tests/orchestrator/http_test_client.h"
#include "tests/support/process.h"

extern char** environ;

using namespace seatmark;
using namespace seatmark::test;
namespace colour = seatmark::monitor::colour;

namespace {

// A private X server for the test (scripts/deps.sh installs Xvfb).
struct Xvfb {
    Xvfb() {
        display = ":" + std::to_string(110 + (getpid() % 40));
        std::vector<std::string> args = {"/usr/bin/Xvfb", display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"};
        REQUIRE_MESSAGE(std::filesystem::exists(args[0]), "Xvfb missing: run scripts/deps.sh");
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        REQUIRE(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) == 0);
        posix_spawn_file_actions_destroy(&fa);
        std::string sock = "/tmp/.X11-unix/X" + display.substr(1);
        wait_until(10, [&] { return std::filesystem::exists(sock); });
    }
    ~Xvfb() {
        kill(pid, SIGTERM);
        waitpid(pid, nullptr, 0);
    }
    pid_t pid = 0;
    std::string display;
};

// Pixels in [x0,x1) x [y0,y1) (fractions of the image) within `tol` of colour c (ImU32 RGBA).
size_t count_colour(const image::Pixels& p, uint32_t c, float x0, float y0, float x1, float y1, int tol = 6) {
    int r = int(c & 255), g = int((c >> 8) & 255), b = int((c >> 16) & 255);
    size_t n = 0;
    for (uint32_t y = uint32_t(y0 * float(p.height)); y < uint32_t(y1 * float(p.height)); ++y)
        for (uint32_t x = uint32_t(x0 * float(p.width)); x < uint32_t(x1 * float(p.width)); ++x) {
            const uint8_t* q = &p.rgba[(size_t(y) * p.width + x) * 4];
            if (std::abs(q[0] - r) <= tol && std::abs(q[1] - g) <= tol && std::abs(q[2] - b) <= tol) ++n;
        }
    return n;
}

size_t distinct_colours(const image::Pixels& p) {
    std::set<uint32_t> s;
    for (size_t i = 0; i + 3 < p.rgba.size(); i += 4)
        s.insert(uint32_t(p.rgba[i]) | uint32_t(p.rgba[i + 1]) << 8 | uint32_t(p.rgba[i + 2]) << 16);
    return s.size();
}

// The layout at 1280x800: header on top, the session grid top left, the session plot
// below it, the run plots on the right.
void check_layout(const image::Pixels& p) {
    CHECK(p.width == 1280);
    CHECK(p.height == 800);
    CHECK(distinct_colours(p) > 150);                                                 // not blank
    CHECK(count_colour(p, colour::panel, 0, 0, 1, 0.09f) > 20000);                   // the header panel
    CHECK(count_colour(p, colour::background, 0, 0, 1, 1) > 200000);                 // the page
    CHECK(count_colour(p, colour::fps_median, 0.43f, 0.30f, 1, 0.55f, 40) > 30);     // FPS plot line
    CHECK(count_colour(p, colour::cpu, 0.43f, 0.50f, 1, 0.75f, 40) > 30);            // host CPU line
}

}  // namespace

TEST_CASE("a finished .db: tiles by state, plots, under Xvfb and without a display") {
    TempDir dir;
    write_synthetic_db(dir.file("run.db"));
    Xvfb x;
    for (const std::string& display : {x.display, std::string()}) {
        INFO("DISPLAY=" << display);
        std::string png = dir.file("db" + display.substr(display.empty() ? 0 : 1) + ".png");
        auto r = run_process(seatmark_argv({"monitor", dir.file("run.db"), "--screenshot", png, "--after", "0.3s"}), 60,
                             {"DISPLAY=" + display});
        INFO(r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.err.find(display.empty() ? "egl surfaceless" : "glfw hidden") != std::string::npos);
        auto p = image::read_png(png);
        check_layout(p);
        // At the end of the last window: session 0 meets its SLA, 1 breaks it, 2 crashed.
        CHECK(count_colour(p, colour::tile_ok, 0, 0.12f, 0.42f, 0.55f, 2) > 1500);
        CHECK(count_colour(p, colour::tile_sla, 0, 0.12f, 0.42f, 0.55f, 2) > 1500);
        CHECK(count_colour(p, colour::tile_failed, 0, 0.12f, 0.42f, 0.55f, 2) > 1500);
        CHECK(count_colour(p, colour::interval, 0, 0.6f, 0.42f, 1, 40) > 50);  // the session's frame intervals
        CHECK(count_colour(p, colour::fail, 0.43f, 0.1f, 1, 0.35f, 10) > 50);   // the failed step's verdict strip
    }
}

TEST_CASE("a live run: the monitor shows its sessions as they run") {
    TempDir dir;
    write_file(dir.file("plan.toml"),
               // Long enough that the run is still going when the test stops it, however slow the machine.
               "name = \"live-monitor\"\n[run]\nallow_software = true\nstop = \"max\"\n[steps]\nlist = [2, 3]\nsettle = \"1s\"\n"
               "window = \"60s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    BackgroundProcess run(
        seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--listen", "127.0.0.1:0", "-q"}));
    uint16_t port = 0;
    REQUIRE(wait_until(30, [&] {
        std::string err = read_file("/proc/" + std::to_string(run.pid()) + "/fd/2");
        return (port = port_in(err)) != 0;
    }));
    // Wait until both sessions draw and the run's history holds a few seconds of FPS, so the
    // screenshot has live figures and a plot line of some length, however slow the machine.
    REQUIRE(wait_until(60, [&] {
        auto r = http_get(port, "/api/v1/state");
        if (r.status != 200) return false;
        auto j = nlohmann::json::parse(r.body);
        int drawing = 0;
        for (const auto& s : j["sessions"]) drawing += s["fps"].is_number();
        return drawing >= 2;
    }));
    REQUIRE(wait_until(60, [&] {
        auto r = http_get(port, "/api/v1/history");
        if (r.status != 200) return false;
        int with_fps = 0;
        const auto history = nlohmann::json::parse(r.body);
        for (const auto& v : history["points"]["fps_median"]) with_fps += v.is_number();
        return with_fps >= 5;
    }));
    Xvfb x;
    std::string url = "http://127.0.0.1:" + std::to_string(port);
    auto r = run_process(seatmark_argv({"monitor", url, "--screenshot", dir.file("live.png"), "--after", "2s"}), 60,
                         {"DISPLAY=" + x.display});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("sessions, source " + url) != std::string::npos);
    auto p = image::read_png(dir.file("live.png"));
    check_layout(p);
    CHECK(count_colour(p, colour::pass, 0.15f, 0, 0.4f, 0.08f, 2) > 100);  // the LIVE chip
    size_t tiles = count_colour(p, colour::tile_ok, 0, 0.1f, 0.42f, 0.55f, 2) +
                   count_colour(p, colour::tile_sla, 0, 0.1f, 0.42f, 0.55f, 2);
    CHECK(tiles > 2 * 2000);  // two running sessions' tiles
    CHECK(count_colour(p, colour::interval, 0, 0.6f, 0.42f, 1, 40) > 30);
    CHECK(count_colour(p, colour::p95_worst, 0.43f, 0.1f, 1, 0.32f, 40) +
              count_colour(p, colour::p95_median, 0.43f, 0.1f, 1, 0.32f, 40) >
          30);

    // Stop the run; its database is browsable at once, here without any display.
    run.signal(SIGINT);
    auto done = run.wait(60);
    CHECK(done.exit_code == 1);  // aborted
    auto r2 = run_process(seatmark_argv({"monitor", dir.file("run.db"), "--screenshot", dir.file("db.png"), "--after", "0s"}),
                          60, {"DISPLAY="});
    INFO(r2.err);
    CHECK(r2.exit_code == 0);
    CHECK(distinct_colours(image::read_png(dir.file("db.png"))) > 150);
}

TEST_CASE("seatmark monitor: clear errors") {
    TempDir dir;
    auto r = run_process(seatmark_argv({"monitor", dir.file("none.db")}), 30, {"DISPLAY="});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("none.db") != std::string::npos);
    r = run_process(seatmark_argv({"monitor", "http://127.0.0.1:9"}), 30, {"DISPLAY="});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("display") != std::string::npos);
    r = run_process(seatmark_argv({"monitor", "https://x:1", "--screenshot", dir.file("a.png")}), 30, {"DISPLAY="});
    CHECK(r.exit_code == 2);
    r = run_process(seatmark_argv({"monitor", "--size", "10x10", "--screenshot", dir.file("a.png")}), 30, {"DISPLAY="});
    CHECK(r.exit_code == 2);
    // Without a run to watch, a screenshot still renders (the monitor waits for one).
    r = run_process(seatmark_argv({"monitor", "http://127.0.0.1:9", "--screenshot", dir.file("b.png"), "--after", "0.3s"}),
                    30, {"DISPLAY="});
    CHECK(r.exit_code == 0);
    CHECK(std::filesystem::exists(dir.file("b.png")));
}
