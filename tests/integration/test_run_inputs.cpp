// `seatmark run` inputs and outputs that used to be taken silently: `--db ''`, a plan path that is
// a folder, a plan's run.device that names no device, the plan's db relative to the plan, and
// a summary written to a full stdout. (test_run.cpp covers the run itself.)
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "store/store_reader.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {
std::string plan(const std::string& extra_run = "") {
    return "name = \"inputs\"\n[run]\nallow_software = true\nheartbeat_timeout = \"5s\"\n" + extra_run +
           "\n[steps]\nlist = [1]\nsettle = \"0s\"\nwindow = \"1s\"\n[[mix]]\nprofile = \"ci-tiny\"\n";
}
}  // namespace

TEST_CASE("run --db '' and a plan path that is a folder are bad inputs, named as such") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("db = \"" + dir.file("plan.db") + "\"\n"));
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", ""}), 30);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--db is empty") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("plan.db")));  // not the plan's db instead

    auto d = run_process(seatmark_argv({"run", dir.path, "--db", dir.file("x.db")}), 30);
    INFO(d.err);
    CHECK(d.exit_code == 2);
    CHECK(d.err.find(dir.path + ": is a folder; give the plan file") != std::string::npos);
    CHECK(d.err.find("missing key") == std::string::npos);
}

TEST_CASE("a plan whose run.device names no device here is refused before any session starts") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("device = \"99\"\n"));
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("x.db")}), 60);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("plan.toml: run.device = \"99\"") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("x.db")));
    // The same words as `seatmark session --device 99`, which refuses the same way.
    auto s = run_process(seatmark_argv({"session", "--device", "99", "--duration", "1s"}), 60);
    CHECK(s.exit_code == 2);
}

TEST_CASE("a plan's db is relative to the plan's folder, and the summary to a full stdout fails the run's exit") {
    TempDir dir;
    fs::create_directories(dir.file("plans"));
    write_file(dir.file("plans/plan.toml"), plan("db = \"out.db\"\n"));
    // From another working directory, into /dev/full: the database lands beside the plan and the
    // lost summary is exit 7 with a message, not exit 0.
    auto r = run_process({"/bin/sh", "-c", "cd / && exec \"$0\" run \"$1\" --json --quiet --listen off > /dev/full", SEATMARK_BIN,
                          dir.file("plans/plan.toml")},
                         120);
    INFO(r.err);
    CHECK(r.exit_code == 7);
    CHECK(r.err.find("standard output: cannot write: No space left on device") != std::string::npos);
    REQUIRE(fs::exists(dir.file("plans/out.db")));
    CHECK_FALSE(fs::exists("/out.db"));
    store::StoreReader db(dir.file("plans/out.db"));
    CHECK(db.effective_status() == store::RunStatus::finished);
}
