// The database's disk filling up under a running `seatmark run`: the store failure stops the run
// at once (sessions stopped, none left behind), says why, and the file reads as aborted with the
// cause; a disk that is merely short of space is warned about while the run goes on.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "store/store_reader.h"
#include "tests/support/mount.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {
std::string plan(const std::string& steps, const std::string& window) {
    return "name = \"disk\"\n[run]\nallow_software = true\nheartbeat_timeout = \"5s\"\nstop = \"max\"\n[steps]\nlist = [" + steps +
           "]\nsettle = \"1s\"\nwindow = \"" + window + "\"\n[[mix]]\nprofile = \"ci-tiny\"\n";
}

// Processes whose command line names `needle` (sessions carry their socket path).
int processes_naming(const std::string& needle) {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmd;
        try {
            cmd = read_file(e.path().string() + "/cmdline");
        } catch (...) {
            continue;
        }
        if (cmd.find(needle) != std::string::npos) ++n;
    }
    return n;
}

// The private socket folder of the run with this pid, "" when none.
std::string run_dir_of(int pid) {
    for (const auto& e : fs::directory_iterator("/tmp")) {
        if (e.path().filename().string().rfind("seatmark-run-", 0) != 0) continue;
        try {
            if (read_file(e.path().string() + "/owner").rfind(std::to_string(pid) + " ", 0) == 0) return e.path().string();
        } catch (...) {
        }
    }
    return "";
}
}  // namespace

TEST_CASE("the database's disk filling mid-run stops the run at once, aborted with the cause") {
    TempDir t;
    Mount m({"/bin/mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", t.file("fs")}, t.file("fs"));
    if (!m.ok) SEATMARK_SKIP("cannot mount a tmpfs here (" << m.why << ")");
    write_file(t.file("plan.toml"), plan("1, 2", "20s"));
    const std::string db = t.file("fs/run.db");
    BackgroundProcess run(seatmark_argv({"run", t.file("plan.toml"), "--db", db, "--quiet", "--listen", "off"}));
    std::string dir;
    REQUIRE(wait_until(60, [&] { return !(dir = run_dir_of(run.pid())).empty() && processes_naming(dir) > 0; }));
    // Once frames are being committed (the run row with them), as in a run a few seconds old.
    REQUIRE(wait_until(30, [&] {
        try {
            return store::StoreReader(db).frame_count() > 0;
        } catch (...) {
            return false;
        }
    }));
    // Fill the file system, as another writer on a shared disk would.
    auto fill = run_process({"/bin/sh", "-c", "cat /dev/zero > '" + t.file("fs/fill") + "' 2>/dev/null; true"}, 20);
    REQUIRE(fill.exit_code == 0);
    auto filled = std::chrono::steady_clock::now();
    auto r = run.wait(60);
    double after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - filled).count();
    INFO(r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 1);
    CHECK(after_s < 15);  // not through both steps (~45 s): stopped at the failure
    CHECK(r.err.find("the database failed") != std::string::npos);
    CHECK(r.err.find("database or disk is full") != std::string::npos);
    CHECK(r.err.find("stopping every session now") != std::string::npos);
    CHECK(r.out.find("PASS") == std::string::npos);  // no step judged after the failure
    CHECK(processes_naming(dir) == 0);              // every session stopped
    CHECK_FALSE(fs::exists(dir));                    // its socket folder removed

    // Free the space: the file reads as aborted, and says why.
    fs::remove(t.file("fs/fill"));
    store::StoreReader reader(db);
    CHECK(reader.effective_status() == store::RunStatus::aborted);
    bool cause = false;
    for (const auto& e : reader.events())
        cause = cause || (e.kind == "run-abort" && e.detail.find("disk is full") != std::string::npos);
    CHECK(cause);
}

TEST_CASE("a run whose database disk is short of space says so while it runs") {
    TempDir t;
    Mount m({"/bin/mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", t.file("fs")}, t.file("fs"));
    if (!m.ok) SEATMARK_SKIP("cannot mount a tmpfs here (" << m.why << ")");
    write_file(t.file("plan.toml"), plan("1", "4s"));
    const std::string db = t.file("fs/run.db");
    auto r = run_process(seatmark_argv({"run", t.file("plan.toml"), "--db", db, "--quiet", "--listen", "off"}), 120);
    INFO(r.err);
    CHECK(r.exit_code == 0);  // it fits: a warning, not a failure
    CHECK(r.err.find("warning: only") != std::string::npos);
    CHECK(r.err.find("free on " + t.file("fs")) != std::string::npos);
    store::StoreReader reader(db);
    CHECK(reader.effective_status() == store::RunStatus::finished);
    int warnings = 0;
    for (const auto& e : reader.events()) warnings += e.kind == "disk-space-low";
    CHECK(warnings == 1);  // said once, not every check
}
