// The real session binary on real Vulkan (lavapipe on CI) with the validation layer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "image/png.h"
#include "tests/support/process.h"

using namespace seatmark::test;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep)) out.push_back(cur);
    return out;
}

struct Csv {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    size_t col(const std::string& name) const {
        auto it = std::find(header.begin(), header.end(), name);
        REQUIRE_MESSAGE(it != header.end(), "missing column " << name);
        return static_cast<size_t>(it - header.begin());
    }
};

Csv read_csv(const std::string& path) {
    Csv c;
    auto lines = split(read_file(path), '\n');
    REQUIRE(!lines.empty());
    c.header = split(lines[0], ',');
    for (size_t i = 1; i < lines.size(); ++i)
        if (!lines[i].empty()) c.rows.push_back(split(lines[i], ','));
    return c;
}

std::string all_output(const ProcessResult& r) { return r.out + r.err; }

}  // namespace

TEST_CASE("a short ci-tiny session with validation writes a complete CSV, a summary and a screenshot") {
    TempDir dir;
    auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "4s", "--validate", "--out",
                                        dir.file("frames.csv"), "--screenshot", dir.file("shot.png")}),
                         180);
    INFO(all_output(r));
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("validation 0 messages") != std::string::npos);
    CHECK(r.out.find("FPS") != std::string::npos);
    CHECK(r.out.find("latency") != std::string::npos);
    CHECK(r.out.find("device") != std::string::npos);

    Csv csv = read_csv(dir.file("frames.csv"));
    const std::vector<std::string> expected = {"seq",         "t_begin_ns", "t_present_ns", "cpu_ns",
                                               "gpu_ns",      "interval_ns", "begin_interval_ns",
                                               "latency_ns",  "stretch",    "mode",         "flags"};
    CHECK(csv.header == expected);
    REQUIRE(csv.rows.size() > 20);
    size_t seq = csv.col("seq"), cpu = csv.col("cpu_ns"), gpu = csv.col("gpu_ns"), iv = csv.col("interval_ns"),
           biv = csv.col("begin_interval_ns"), lat = csv.col("latency_ns"), stretch = csv.col("stretch"),
           mode = csv.col("mode");
    long long prev_begin = -1;
    int with_gpu = 0, with_interval = 0, with_latency = 0;
    std::set<std::string> modes;
    std::set<long long> stretches;
    for (size_t i = 0; i < csv.rows.size(); ++i) {
        const auto& row = csv.rows[i];
        REQUIRE(row.size() == expected.size());
        CHECK(std::stoull(row[seq]) == i);  // no gaps: nothing dropped locally
        long long begin = std::stoll(row[csv.col("t_begin_ns")]);
        CHECK(begin > prev_begin);
        prev_begin = begin;
        long long c = std::stoll(row[cpu]), g = std::stoll(row[gpu]), v = std::stoll(row[iv]), l = std::stoll(row[lat]);
        CHECK(c > 0);
        if (v >= 0) ++with_interval;
        // cpu time ends at submit, before the next frame of the stretch begins
        if (i + 1 < csv.rows.size() && csv.rows[i + 1][stretch] == row[stretch])
            CHECK(c <= std::stoll(csv.rows[i + 1][biv]));
        if (g >= 0) ++with_gpu;
        if (l >= 0) {
            ++with_latency;
            CHECK(l > 0);
            CHECK(l < 10'000'000'000LL);
        }
        modes.insert(row[mode]);
        stretches.insert(std::stoll(row[stretch]));
    }
    CHECK(with_gpu == static_cast<int>(csv.rows.size()));  // lavapipe has timestamps
    CHECK(with_interval > 10);
    CHECK(with_latency > 0);
    CHECK(stretches.size() >= 2);  // ci-tiny has think pauses
    CHECK(modes.size() >= 3);      // and switches display modes
}

TEST_CASE("the screenshot shows an object covering a sensible share of pixels in several colours") {
    TempDir dir;
    auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "1s", "--width", "480",
                                        "--height", "360", "--screenshot", dir.file("shot.png"), "--quiet"}),
                         120);
    INFO(all_output(r));
    REQUIRE(r.exit_code == 0);
    auto img = seatmark::image::read_png(dir.file("shot.png"));
    REQUIRE(img.width == 480);
    REQUIRE(img.height == 360);
    // The background is a vertical grey-blue gradient: the same colour across a row.
    // A pixel that differs from its row's leftmost and rightmost pixel is geometry.
    size_t object = 0;
    // Colour classes: neutral (greys, black fasteners, steel) or the order of the
    // three channels (orange r>g>b, green g>r,b, blue b>g>r, ...). A class counts
    // when it covers at least 1 % of the object, so shading noise does not.
    std::map<int, size_t> classes;
    for (uint32_t y = 0; y < img.height; ++y) {
        const uint8_t* row = img.rgba.data() + size_t(y) * img.width * 4;
        const uint8_t* bg = row;  // the gradient background is uniform across a row; the left edge is background
        for (uint32_t x = 0; x < img.width; ++x) {
            const uint8_t* p = row + x * 4;
            int d = std::abs(p[0] - bg[0]) + std::abs(p[1] - bg[1]) + std::abs(p[2] - bg[2]);
            if (d > 24) {
                ++object;
                int mx = std::max({p[0], p[1], p[2]}), mn = std::min({p[0], p[1], p[2]});
                int cls = mx - mn <= 40 ? 8 : (p[0] > p[1]) * 4 + (p[1] > p[2]) * 2 + (p[0] > p[2]);
                ++classes[cls];
            }
        }
    }
    size_t distinct = 0;
    for (auto& [cls, n] : classes) distinct += n * 100 >= object;
    double share = double(object) / (double(img.width) * img.height);
    INFO("object share " << share << ", colour classes " << distinct);
    CHECK(share > 0.10);
    CHECK(share < 0.95);
    CHECK(distinct >= 3);
}

TEST_CASE("every MSAA level renders without validation messages") {
    for (const char* msaa : {"1", "4", "8"}) {
        CAPTURE(msaa);
        auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "1s", "--msaa", msaa,
                                            "--validate"}),
                             120);
        INFO(all_output(r));
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("validation 0 messages") != std::string::npos);
        bool fell_back = r.err.find("supports at most") != std::string::npos;
        // A device without 8x (lavapipe stops at 4x) renders at its most and says so in the summary.
        if (fell_back) CHECK(r.out.find("requested, not supported") != std::string::npos);
        else CHECK(r.out.find(std::string("msaa ") + msaa) != std::string::npos);
    }
}

TEST_CASE("the session says loudly when it lands on a software renderer and can refuse it") {
    // Whether this machine's devices are software renderers is read from `seatmark probe --json`,
    // not from the warning under test: every device software -> warned and refusable; a hardware
    // device present -> the session takes it, no warning, --no-software runs.
    auto probe = run_process(seatmark_argv({"probe", "--json"}), 60);
    REQUIRE(probe.exit_code == 0);
    const auto devices = nlohmann::json::parse(probe.out).at("vulkan_devices");
    REQUIRE(!devices.empty());
    bool all_software = true;
    for (const auto& d : devices) all_software &= d.at("software").get<bool>();
    auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "1s", "--quiet"}), 120);
    INFO(all_output(r));
    REQUIRE(r.exit_code == 0);
    const bool warned = r.err.find("SOFTWARE renderer") != std::string::npos;
    CHECK(warned == all_software);
    auto refused = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "1s", "--no-software", "--quiet"}), 60);
    INFO(all_output(refused));
    if (all_software) {
        CHECK(refused.exit_code == 6);
        CHECK(refused.err.find("--no-software") != std::string::npos);
    } else {
        CHECK(refused.exit_code == 0);
    }
}

TEST_CASE("bad input exits 2 with a one-line message naming what was expected") {
    TempDir dir;
    write_file(dir.file("broken.toml"), "name = \"broken\"\n[render]\nwidth = 640\nmsaa = = 4\n");
    write_file(dir.file("badmsaa.toml"),
               "name = \"bad\"\n[scene]\nseed = 1\n[render]\nmsaa = 3\n[[script.segment]]\nkind = \"orbit\"\n"
               "duration = \"1s\"\nrate = 30\n");
    struct Case {
        std::vector<std::string> args;
        std::vector<std::string> expect;  // substrings of stderr
    };
    std::vector<Case> cases = {
        {{"--workload", "no-such-profile"}, {"no-such-profile", "ci-tiny"}},
        {{"--workload", dir.file("broken.toml")}, {"broken.toml:4"}},
        {{"--workload", dir.file("badmsaa.toml")}, {"badmsaa.toml:5", "msaa"}},
        {{"--workload", dir.file("missing.toml")}, {"missing.toml"}},
        {{"--workload", "ci-tiny", "--msaa", "3"}, {"msaa", "1, 2, 4, 8, 16, 32 or 64"}},
        {{"--workload", "ci-tiny", "--duration", "soon"}, {"--duration", "30s"}},
        {{"--workload", "ci-tiny", "--width", "5"}, {"16..32768"}},
        {{"--workload", "ci-tiny", "--device", "no-such-gpu"}, {"no-such-gpu", "0:"}},
        {{"--workload", "ci-tiny", "--bogus-flag"}, {"bogus"}},
    };
    for (auto& c : cases) {
        std::vector<std::string> args = {"session"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        args.push_back("--out");
        args.push_back(dir.file("should-not-exist.csv"));
        auto r = run_process(seatmark_argv(args), 60);
        CAPTURE(c.args.back());
        INFO(all_output(r));
        CHECK(r.exit_code == 2);
        for (auto& e : c.expect) CHECK(r.err.find(e) != std::string::npos);
        CHECK(r.out.find("FPS") == std::string::npos);  // nothing rendered
        CHECK(!std::filesystem::exists(dir.file("should-not-exist.csv")));
    }
}

TEST_CASE("no Vulkan device is a clear bad-input error") {
    auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "1s"}), 60,
                         {"VK_ICD_FILENAMES=/nonexistent/icd.json", "VK_DRIVER_FILES=/nonexistent/icd.json"});
    INFO(all_output(r));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("no Vulkan device") != std::string::npos);
}

TEST_CASE("--help of every command shows an example") {
    auto top = run_process(seatmark_argv({"--help"}), 30);
    CHECK(top.exit_code == 0);
    CHECK(top.out.find("session") != std::string::npos);
    auto sess = run_process(seatmark_argv({"session", "--help"}), 30);
    CHECK(sess.out.find("--workload") != std::string::npos);
    for (const char* cmd : {"session", "run", "demo", "report", "check", "compare", "probe", "monitor", "push"}) {
        CAPTURE(cmd);
        CHECK(top.out.find(cmd) != std::string::npos);
        auto h = run_process(seatmark_argv({cmd, "--help"}), 30);
        CHECK(h.exit_code == 0);
        CHECK(h.out.find("Example") != std::string::npos);
        CHECK(h.out.find(std::string("seatmark ") + cmd) != std::string::npos);  // the example runs this command
    }
}

TEST_CASE("--list-workloads names every built-in profile") {
    auto r = run_process(seatmark_argv({"session", "--list-workloads"}), 30);
    CHECK(r.exit_code == 0);
    for (const char* n : {"ci-tiny", "viewer-light", "designer-medium", "power-heavy"})
        CHECK(r.out.find(n) != std::string::npos);
}

TEST_CASE("--window presents to a real X window under Xvfb") {
    // Xvfb is installed by scripts/deps.sh; a private display number avoids clashes.
    const std::string display = ":" + std::to_string(90 + (getpid() % 9));
    pid_t xvfb = 0;
    std::string xvfb_path = "/usr/bin/Xvfb";
    REQUIRE_MESSAGE(std::filesystem::exists(xvfb_path), "Xvfb missing: run scripts/deps.sh");
    std::vector<std::string> xargs = {xvfb_path, display, "-screen", "0", "800x600x24", "-nolisten", "tcp"};
    std::vector<char*> argv;
    for (auto& a : xargs) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    REQUIRE(posix_spawn(&xvfb, argv[0], &fa, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    // Xvfb is ready when its socket exists (sanity bound: 20 s).
    REQUIRE(wait_until(20, [&] { return std::filesystem::exists("/tmp/.X11-unix/X" + display.substr(1)); }));

    TempDir dir;
    auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "2s", "--window", "--validate",
                                        "--out", dir.file("frames.csv")}),
                         120, {"DISPLAY=" + display});
    kill(xvfb, SIGTERM);
    waitpid(xvfb, nullptr, 0);
    INFO(all_output(r));
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("validation 0 messages") != std::string::npos);
    // With a window a frame is presented when vkQueuePresentKHR returns, after its submit:
    // cpu time (begin -> submit returned) ends before it, and intervals are present to present.
    Csv csv = read_csv(dir.file("frames.csv"));
    REQUIRE(csv.rows.size() > 10);
    size_t begin = csv.col("t_begin_ns"), present = csv.col("t_present_ns"), cpu = csv.col("cpu_ns"),
           iv = csv.col("interval_ns"), stretch = csv.col("stretch");
    for (size_t i = 0; i < csv.rows.size(); ++i) {
        const auto& row = csv.rows[i];
        long long b = std::stoll(row[begin]), p = std::stoll(row[present]), c = std::stoll(row[cpu]);
        CHECK(p >= b + c);
        if (i > 0 && csv.rows[i - 1][stretch] == row[stretch])
            CHECK(std::stoll(row[iv]) == p - std::stoll(csv.rows[i - 1][present]));
    }
}

TEST_CASE("--window without a display is a clear error") {
    auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "1s", "--window"}), 60,
                         {"DISPLAY=", "WAYLAND_DISPLAY="});
    INFO(all_output(r));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--window") != std::string::npos);
}

TEST_CASE("a command that takes its database positionally says so when given --db, and --watermark shows as an option") {
    auto r = run_process(seatmark_argv({"monitor", "--db", "run.db"}), 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("hint: monitor takes its source without a flag: seatmark monitor RUN.db") != std::string::npos);
    auto e = run_process(seatmark_argv({"export", "frames", "--db", "run.db"}), 30);
    CHECK(e.exit_code == 2);
    CHECK(e.err.find("hint: export frames takes its db without a flag: seatmark export frames RUN.db") != std::string::npos);
    auto h = run_process(seatmark_argv({"session", "--help"}), 30);
    CHECK(h.out.find("--watermark [=PX]") != std::string::npos);
    CHECK(h.out.find("{16}") == std::string::npos);
}
