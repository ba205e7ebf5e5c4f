// `seatmark stage` on inputs and outputs that used to fail silently: --json where it cannot be
// written, an empty --dest, /proc files (size 0 whatever they hold), links and special files in
// a tree. Staged locally as one process (no mpirun needed for these).
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "tests/support/mount.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {
ProcessResult stage_local(std::vector<std::string> args) {
    args.insert(args.begin(), "stage");
    args.push_back("--quiet");
    auto r = run_process(seatmark_argv(args), 30);
    REQUIRE_FALSE(r.timed_out);
    return r;
}
}  // namespace

TEST_CASE("stage --json to a missing folder or a directory is refused before staging, exit 2") {
    TempDir t;
    write_file(t.file("f"), "payload");
    auto r = stage_local({"--source", t.file("f"), "--dest", t.file("d"), "--json", t.file("no/such/s.json")});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--json " + t.file("no/such/s.json") + ": folder " + t.file("no/such")) != std::string::npos);
    CHECK_FALSE(fs::exists(t.file("d/f")));  // refused before anything was copied

    fs::create_directories(t.file("adir"));
    r = stage_local({"--source", t.file("f"), "--dest", t.file("d"), "--json", t.file("adir")});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("is a directory") != std::string::npos);
}

TEST_CASE("stage --json on a file system that fills up or turns read-only: exit 7, the copies stay") {
    TempDir t;
    write_file(t.file("f"), std::string(100000, 'x'));
    Mount m({"/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", t.file("out")}, t.file("out"));
    if (!m.ok) SEATMARK_SKIP("cannot mount a tmpfs here (" << m.why << ")");
    // Fill it so the summary cannot be written, after the pre-check saw a writable folder.
    auto fill = run_process({"/bin/sh", "-c", "cat /dev/zero > " + t.file("out/fill") + " 2>/dev/null; true"}, 10);
    REQUIRE(fill.exit_code == 0);
    auto r = stage_local({"--source", t.file("f"), "--dest", t.file("d"), "--json", t.file("out/s.json")});
    INFO(r.err);
    CHECK(r.exit_code == 7);
    CHECK(r.err.find(t.file("out/s.json") + ": cannot write: No space left on device") != std::string::npos);
    CHECK(fs::file_size(t.file("d/f")) == 100000);
    CHECK_FALSE(fs::exists(t.file("out/s.json")));
    for (const auto& e : fs::directory_iterator(t.file("out")))  // no temporary file left behind
        CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);  // "fill" only

    fs::remove(t.file("out/fill"));
    REQUIRE(m.remount(true));
    r = stage_local({"--source", t.file("f"), "--dest", t.file("d2"), "--json", t.file("out/s.json")});
    INFO(r.err);
    CHECK(r.exit_code == 2);  // the pre-check sees it is not writable
    CHECK(r.err.find("not writable") != std::string::npos);
}

TEST_CASE("stage --dest '' is a bad input, exit 2") {
    TempDir t;
    write_file(t.file("f"), "payload");
    auto r = stage_local({"--source", t.file("f"), "--dest", ""});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--dest is empty") != std::string::npos);
}

TEST_CASE("a /proc file is refused (its size reads 0), not copied empty") {
    TempDir t;
    auto r = stage_local({"--source", "/proc/self/status", "--dest", t.file("d")});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("/proc/self/status: on a proc pseudo file system") != std::string::npos);
    CHECK_FALSE(fs::exists(t.file("d/status")));
}

TEST_CASE("links to folders, dangling links and sockets in a tree are named, not skipped silently") {
    TempDir t;
    fs::create_directories(t.file("src/sub"));
    write_file(t.file("src/a"), "a");
    write_file(t.file("src/sub/b"), "b");
    fs::create_directory_symlink(t.file("src/sub"), t.file("src/linkdir"));
    fs::create_symlink(t.file("src/gone"), t.file("src/dangling"));
    fs::create_symlink(t.file("src/a"), t.file("src/linkfile"));
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::string sock = t.file("src/sock");
    REQUIRE(sock.size() < sizeof addr.sun_path);
    std::strcpy(addr.sun_path, sock.c_str());
    REQUIRE(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    close(s);

    auto r = stage_local({"--source", t.file("src"), "--dest", t.file("d")});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("left out 3 entries that are not regular files") != std::string::npos);
    CHECK(r.err.find("src/linkdir: symbolic link to a folder, not followed") != std::string::npos);
    CHECK(r.err.find("src/dangling: dangling symbolic link") != std::string::npos);
    CHECK(r.err.find("src/sock: socket") != std::string::npos);
    CHECK(read_file(t.file("d/src/a")) == "a");
    CHECK(read_file(t.file("d/src/sub/b")) == "b");
    CHECK(read_file(t.file("d/src/linkfile")) == "a");  // a link to a file stages the file's content
    CHECK_FALSE(fs::exists(t.file("d/src/linkdir")));
}

TEST_CASE("a sparse source stays sparse in its copy, with the same bytes") {
    TempDir t;
    const std::string src = t.file("sparse.img");
    // 64 MiB with 8 KiB of data at the start, in the middle and at the end: the rest is holes.
    auto mk = run_process({"/bin/sh", "-c", "truncate -s 64M '" + src + "' && printf 'head' | dd of='" + src +
                                                "' conv=notrunc bs=1 seek=0 2>/dev/null && head -c 8192 /dev/urandom | dd of='" +
                                                src + "' conv=notrunc bs=1M seek=32 oflag=seek_bytes 2>/dev/null && "
                                                "printf 'tail' | dd of='" + src + "' conv=notrunc bs=1 seek=67108860 2>/dev/null"},
                          30);
    REQUIRE(mk.exit_code == 0);
    struct stat s {};
    REQUIRE(stat(src.c_str(), &s) == 0);
    if (uint64_t(s.st_blocks) * 512 >= uint64_t(s.st_size)) SEATMARK_SKIP("this file system does not keep holes");
    auto r = stage_local({"--source", src, "--dest", t.file("d"), "--post-verify"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    struct stat d {};
    REQUIRE(stat(t.file("d/sparse.img").c_str(), &d) == 0);
    CHECK(d.st_size == s.st_size);
    CHECK(uint64_t(d.st_blocks) * 512 < (4u << 20));  // not 64 MiB of zeros
    CHECK(read_file(t.file("d/sparse.img")) == read_file(src));
}
