// DestFile and remove_stale_temps on real files: O_DIRECT on /tmp's disk file system, tmpfs, page-cache
// writes, and what exists under which name before and after commit.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "common/file_hash.h"
#include "stage/dest_file.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {

struct Buffer {
    explicit Buffer(size_t n) : p(static_cast<char*>(std::aligned_alloc(stage::kDirectAlign, stage::round_up_direct(n))), &std::free) {}
    std::unique_ptr<char, decltype(&std::free)> p;
};

// Writes `content` through a DestFile in chunks of `chunk` bytes (the last one shorter).
void write_through(stage::DestFile& d, const std::string& content, size_t chunk) {
    Buffer b(chunk);
    for (size_t off = 0; off < content.size(); off += chunk) {
        size_t n = std::min(chunk, content.size() - off);
        std::memcpy(b.p.get(), content.data() + off, n);
        d.write(b.p.get(), n, off);
    }
}

std::string pattern(size_t n) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131) ^ (i >> 9));
    return s;
}

}  // namespace

TEST_CASE("a copy of an unaligned size written with O_DIRECT has its exact size, mode and mtime only after commit") {
    TempDir t;
    const std::string content = pattern(3 * 65536 + 1234);  // last chunk not a multiple of the block size
    const std::string dest = t.file("asset.bin");
    stage::DestFile d(dest, content.size(), true);
    REQUIRE(d.ok());
    CHECK(d.direct());  // /tmp is a disk file system here
    CHECK(fs::exists(d.temp_path()));
    CHECK(fs::path(d.temp_path()).filename().string().rfind(".asset.bin.seatmark-stage.", 0) == 0);
    write_through(d, content, 65536);
    CHECK_FALSE(fs::exists(dest));  // nothing under the final name while it is written
    auto times = d.commit(0640, 1700000000, 123456789, XXH3_64bits(content.data(), content.size()));
    REQUIRE(d.ok());
    CHECK(times.verify_s >= 0);
    CHECK(read_file(dest) == content);
    CHECK_FALSE(fs::exists(d.temp_path()));
    struct stat st{};
    REQUIRE(::stat(dest.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0640);
    CHECK(st.st_mtim.tv_sec == 1700000000);
    CHECK(st.st_mtim.tv_nsec == 123456789);
}

TEST_CASE("with O_DIRECT or without (tmpfs before Linux 6.6 refuses it), a copy on tmpfs is exact, and --buffered writes through the page cache") {
    if (!fs::exists("/dev/shm")) SEATMARK_SKIP("no /dev/shm (tmpfs) here");
    const std::string dir = "/dev/shm/seatmark-dest-file-" + std::to_string(getpid());
    fs::create_directories(dir);
    const std::string content = pattern(100001);
    for (bool direct : {true, false}) {
        {
            stage::DestFile d(dir + "/f", content.size(), direct);
            REQUIRE(d.ok());
            if (!direct) CHECK_FALSE(d.direct());
            write_through(d, content, 16384);
            d.commit(0644, 1, 0, std::nullopt);
            REQUIRE(d.ok());
        }
        CHECK(read_file(dir + "/f") == content);
    }
    fs::remove_all(dir);
}

TEST_CASE("a failed post-verify, a recorded failure or no commit at all leave nothing behind") {
    TempDir t;
    const std::string content = pattern(50000);
    {
        stage::DestFile d(t.file("a"), content.size(), true);
        write_through(d, content, 8192);
        d.commit(0644, 1, 0, file_xxh3("/proc/self/exe"));  // a checksum the copy cannot have
        CHECK_FALSE(d.ok());
        CHECK(d.error().find("post-verify") != std::string::npos);
    }
    {
        stage::DestFile d(t.file("b"), content.size(), true);
        write_through(d, content, 8192);
        d.fail("the source could not be read on the reading rank");
        d.commit(0644, 1, 0, std::nullopt);
        CHECK_FALSE(d.ok());
    }
    {
        stage::DestFile d(t.file("c"), content.size(), true);
        write_through(d, content, 8192);
    }  // destroyed without commit
    CHECK(fs::is_empty(t.path));
}

TEST_CASE("a destination directory that does not exist is an error naming the temporary file") {
    stage::DestFile d("/nonexistent-dir/x/asset.bin", 10, true);
    CHECK_FALSE(d.ok());
    CHECK(d.error().find("/nonexistent-dir/x/.asset.bin.seatmark-stage.") != std::string::npos);
    CHECK(d.error().find("No such file or directory") != std::string::npos);
}

TEST_CASE("stale temporary files of dead processes are removed, a live writer's and other files are kept") {
    TempDir t;
    pid_t child = fork();
    if (child == 0) _exit(0);
    REQUIRE(child > 0);
    REQUIRE(waitpid(child, nullptr, 0) == child);  // this pid now names no process
    const std::string dead = t.file(".mesh.bin.seatmark-stage." + std::to_string(child) + ".tmp");
    const std::string live = t.file(".mesh.bin.seatmark-stage." + std::to_string(getppid()) + ".tmp");
    const std::string mine = t.file(".other.seatmark-stage." + std::to_string(getpid()) + ".tmp");
    for (auto& p : {dead, live, mine, t.file("mesh.bin"), t.file(".seatmark-stage.notes"), t.file(".x.seatmark-stage.12ab.tmp")})
        write_file(p, "x");
    CHECK(stage::remove_stale_temps(t.path) == 1);
    CHECK_FALSE(fs::exists(dead));
    for (auto& p : {live, mine, t.file("mesh.bin"), t.file(".seatmark-stage.notes"), t.file(".x.seatmark-stage.12ab.tmp")})
        CHECK(fs::exists(p));
    CHECK(stage::remove_stale_temps(t.path + "/no-such-dir") == 0);
}
