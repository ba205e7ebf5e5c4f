// Reading a finished run needs no write access: report, check and compare on a read-only
// mount, and on a 0444 database of another user in a folder that user cannot write. (SQLite's
// WAL mode otherwise wants to create or write the -shm file even to read.)
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "tests/report/golden.h"
#include "tests/support/mount.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
namespace fs = std::filesystem;
namespace golden = seatmark::test::golden;

namespace {

const std::string example_refs = std::string(SEATMARK_SOURCE_DIR) + "/report/examples/references.toml";

// Runs report, check and compare on `db` with `prefix` before seatmark (e.g. setpriv as another
// user); the report goes to `out`. Every one must read the run and give its usual answer.
void read_all_ways(const std::vector<std::string>& prefix, const std::string& db, const std::string& out) {
    auto run = [&](std::vector<std::string> args) {
        std::vector<std::string> argv = prefix;
        for (auto& a : test::seatmark_argv(std::move(args))) argv.push_back(a);
        return test::run_process(argv, 120);
    };
    auto r = run({"report", db, "--out", out, "--quiet"});
    INFO("report: " << r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(fs::exists(out + "/report.json"));
    auto c = run({"check", db, "--references", example_refs, "--quiet"});
    INFO("check: " << c.out << c.err);
    CHECK(c.exit_code == 0);
    CHECK(c.out.find("max_density") != std::string::npos);
    auto m = run({"compare", db, db, "--quiet"});
    INFO("compare: " << m.out << m.err);
    CHECK(m.exit_code == 0);
    CHECK(m.out.find("max density: A 6, B 6") != std::string::npos);
    for (const auto* p : {&r, &c, &m}) {
        CHECK(p->err.find("readonly database") == std::string::npos);
        CHECK(p->err.find("unable to open") == std::string::npos);
    }
}

}  // namespace

TEST_CASE("a finished run on a read-only mount: report, check and compare read it") {
    test::TempDir t;
    test::Mount m = test::loop_ext2(t.file("fs.img"), 16, t.file("fs"));
    if (!m.ok) SEATMARK_SKIP("cannot loop-mount a file system here (" << m.why << ")");
    const std::string db = t.file("fs/golden.db");
    golden::write(db, golden::crafted());
    REQUIRE(m.remount(true));
    CHECK(!fs::exists(db + "-shm"));
    read_all_ways({}, db, t.file("out"));
    CHECK(!fs::exists(db + "-shm"));  // nothing written beside it (it could not be)
}

TEST_CASE("a 0444 database of another user, in a folder that user cannot write, is read") {
    if (geteuid() != 0) SEATMARK_SKIP("needs root to run seatmark as another user");
    if (!fs::exists("/usr/bin/setpriv")) SEATMARK_SKIP("no setpriv");
    test::TempDir t;
    chmod(t.path.c_str(), 0755);
    const std::string dir = t.file("runs"), out = t.file("out");
    fs::create_directories(dir);
    fs::create_directories(out);
    chmod(out.c_str(), 0777);
    const std::string db = dir + "/golden.db";
    golden::write(db, golden::crafted());
    chmod(db.c_str(), 0444);
    chmod(dir.c_str(), 0555);
    const std::vector<std::string> as_nobody = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
                                                "--clear-groups", "--"};
    // The binary must be reachable for that user (it is, unless the build tree is private).
    auto probe = test::run_process({as_nobody[0], as_nobody[1], as_nobody[2], as_nobody[3], SEATMARK_BIN, "--version"}, 20);
    if (probe.exit_code != 0) SEATMARK_SKIP("user nobody cannot run " << SEATMARK_BIN << ": " << probe.err);
    read_all_ways(as_nobody, db, out + "/report");
    chmod(dir.c_str(), 0755);
}
