// `seatmark run` and `seatmark session` against hostile inputs (issue 35): plans, profiles and
// token files that are devices, FIFOs, folders or nested 40,000 levels deep; a frame cap that
// outlived --duration; an --accept address named as --listen. Each is refused at once with exit 2
// and a message naming the file or option; nothing crashes, hangs or starts.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {

std::string deep_key(int levels) {
    std::string s;
    for (int i = 0; i < levels; ++i) s += "a.";
    return s + "a = 1\n";
}

void check_refused(const ProcessResult& r, const std::string& message) {
    INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK_FALSE(r.timed_out);
    CHECK(r.signal == 0);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
}

}  // namespace

TEST_CASE("run: a plan that is /dev/zero, a FIFO or nested 40,000 levels is refused at once, naming it") {
    TempDir dir;
    REQUIRE(::mkfifo(dir.file("fifo.toml").c_str(), 0600) == 0);
    write_file(dir.file("deep.toml"), "name = \"deep\"\n" + deep_key(40000));
    check_refused(run_process(seatmark_argv({"run", "/dev/zero", "--db", dir.file("a.db")}), 30),
                  "/dev/zero: cannot read the plan: it is not a regular file but a device");
    check_refused(run_process(seatmark_argv({"run", dir.file("fifo.toml"), "--db", dir.file("a.db")}), 30),
                  dir.file("fifo.toml") + ": cannot read the plan: it is not a regular file but a FIFO");
    check_refused(run_process(seatmark_argv({"run", dir.file("deep.toml"), "--db", dir.file("a.db")}), 30),
                  dir.file("deep.toml") + ":2: TOML nested deeper than 64 levels");
    CHECK_FALSE(fs::exists(dir.file("a.db")));
}

TEST_CASE("session: a workload that is a folder, a FIFO or nested 40,000 levels is refused, naming it") {
    TempDir dir;
    fs::create_directories(dir.file("profiles"));
    REQUIRE(::mkfifo(dir.file("fifo.toml").c_str(), 0600) == 0);
    write_file(dir.file("deep.toml"), "name = \"deep\"\n" + deep_key(40000));
    // Issue 35: a folder said "missing key 'name'", with or without a slash in its name.
    check_refused(run_process(seatmark_argv({"session", "--workload", dir.file("profiles"), "--synthetic-fps", "60"}), 30),
                  dir.file("profiles") + ": cannot read the profile: it is a directory");
    auto here = run_process({"/bin/sh", "-c", "cd \"$1\" && exec \"$0\" session --workload profiles --synthetic-fps 60",
                             SEATMARK_BIN, dir.path},
                            30);
    check_refused(here, "profiles: cannot read the profile: it is a directory");
    check_refused(run_process(seatmark_argv({"session", "--workload", dir.file("fifo.toml"), "--synthetic-fps", "60"}), 30),
                  dir.file("fifo.toml") + ": cannot read the profile: it is not a regular file but a FIFO");
    check_refused(run_process(seatmark_argv({"session", "--workload", dir.file("deep.toml"), "--synthetic-fps", "60"}), 30),
                  "deep.toml:2: TOML nested deeper than 64 levels");
}

TEST_CASE("session: a frame cap below 1 Hz is refused, and a session never outlives its duration waiting for the cap") {
    // Issue 35: `frame_cap_hz = 0.01` or `--synthetic-fps 0.001` ran past --duration (1e-9 Hz: 31 years).
    TempDir dir;
    check_refused(run_process(seatmark_argv({"session", "--synthetic-fps", "0.001", "--duration", "1s"}), 30),
                  "--synthetic-fps: expected 1 <= N <= 10000");
    write_file(dir.file("slow.toml"), "name = \"slow\"\n[render]\nframe_cap_hz = 0.01\n[[script.segment]]\nkind = \"orbit\"\n"
                                      "duration = \"10s\"\n");
    check_refused(run_process(seatmark_argv({"session", "--workload", dir.file("slow.toml"), "--duration", "1s"}), 30),
                  "slow.toml:3:16: key 'render.frame_cap_hz': expected 0 (uncapped) or a number from 1 to 1000");
    // The lowest cap allowed, 1 Hz, against a 1 s session: it ends on time (a second frame's deadline
    // would be 1 s after the first, at or past the end).
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--synthetic-fps", "1", "--duration", "1s"}), 60);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(took < 30);  // sanity only: it used to wait for the cap, not the duration
}

TEST_CASE("a token file that is /dev/urandom or a FIFO is refused at once, naming it") {
    TempDir dir;
    REQUIRE(::mkfifo(dir.file("token").c_str(), 0600) == 0);
    for (const std::string& token : {std::string("/dev/urandom"), dir.file("token")}) {
        CAPTURE(token);
        check_refused(run_process(seatmark_argv({"session", "--join", "127.0.0.1:9", "--token-file", token,
                                                 "--synthetic-fps", "60", "--retry-for", "0s"}),
                                  30),
                      "--token-file " + token + ": cannot read the token file: it is not a regular file");
    }
}

TEST_CASE("run --accept with a bad address names --accept, not --listen") {
    // Issue 35: `run --accept 127.0.0.1:70000` said "--listen 127.0.0.1:70000: port must be 0..65535".
    TempDir dir;
    write_file(dir.file("token"), "a3f1c2-token\n");
    write_file(dir.file("plan.toml"), "name = \"join\"\n[run]\nsessions = \"join\"\n[steps]\nlist = [1]\n[[mix]]\nprofile = \"ci-tiny\"\n");
    for (const std::string& addr : {std::string("127.0.0.1:70000"), std::string("no-such-host.invalid:7879")}) {
        CAPTURE(addr);
        auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("a.db"), "--accept", addr,
                                            "--token-file", dir.file("token"), "--listen", "off"}),
                             30);
        check_refused(r, "--accept " + addr + ": ");
        CHECK(r.err.find("--listen") == std::string::npos);
    }
}
