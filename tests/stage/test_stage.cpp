// `seatmark stage` under a real mpirun with 2-3 ranks on this machine; {rank} in --dest makes every
// rank its own host with its own destination.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>
#include <random>
#include <string>
#include <vector>

#include "common/file_hash.h"
#include "tests/support/process.h"
#include "tests/support/mount.h"
#include "tests/support/skip.h"

using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {

std::string mpirun_path() {
    for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun"})
        if (access(p, X_OK) == 0) return p;
    return "mpirun";
}

const std::vector<std::string> mpi_env = {
    "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none",
    "OMPI_MCA_rmaps_base_oversubscribe=1", "OMPI_MCA_btl=self,vader"};

std::vector<std::string> mpirun_argv(int ranks, std::vector<std::string> args);

ProcessResult stage(int ranks, std::vector<std::string> args, double timeout_s = 20) {
    args.push_back("--quiet");
    auto r = run_process(mpirun_argv(ranks, args), timeout_s, mpi_env);
    REQUIRE_FALSE(r.timed_out);
    return r;
}

std::string random_bytes(size_t n, unsigned seed) {
    std::mt19937 g(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(g());
    return s;
}

uint64_t xxh3(const std::string& path) {
    auto s = read_file(path);
    return XXH3_64bits(s.data(), s.size());
}

struct stat stat_of(const std::string& p) {
    struct stat st{};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st;
}

void check_copy(const std::string& src, const std::string& dst) {
    INFO(dst);
    REQUIRE(fs::exists(dst));
    auto a = stat_of(src), b = stat_of(dst);
    CHECK(xxh3(src) == xxh3(dst));
    CHECK((a.st_mode & 07777) == (b.st_mode & 07777));
    CHECK(a.st_mtim.tv_sec == b.st_mtim.tv_sec);
    CHECK(a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
}

// A large file of random bytes, written in blocks (the per-byte generator above is too slow for it).
void write_random_file(const std::string& path, size_t bytes, uint64_t seed) {
    std::mt19937_64 g(seed);
    std::string block(1 << 20, '\0');
    FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    for (size_t done = 0; done < bytes; done += block.size()) {
        for (size_t i = 0; i < block.size(); i += 8) {
            uint64_t v = g();
            std::memcpy(&block[i], &v, 8);
        }
        REQUIRE(std::fwrite(block.data(), 1, std::min(block.size(), bytes - done), f) == std::min(block.size(), bytes - done));
    }
    std::fclose(f);
}

// The temporary file a writer keeps in dir while it writes (".NAME.seatmark-stage.PID.tmp"), or "".
std::string temp_file_in(const std::string& dir) {
    std::error_code ec;
    for (auto& e : fs::directory_iterator(dir, ec))
        if (e.path().filename().string().find(".seatmark-stage.") != std::string::npos) return e.path().string();
    return {};
}

// Polls every millisecond (wait_until's 100 ms would miss a transfer that takes half a second).
std::string wait_for_temp_file(const std::string& dir, double timeout_s) {
    for (int i = 0; i < timeout_s * 1000; ++i) {
        if (auto p = temp_file_in(dir); !p.empty()) return p;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return {};
}

pid_t pid_of_temp(const std::string& temp) {
    auto name = fs::path(temp).filename().string();
    auto tag = name.rfind(".seatmark-stage.");
    return static_cast<pid_t>(std::stol(name.substr(tag + 16)));
}

std::vector<std::string> mpirun_argv(int ranks, std::vector<std::string> args) {
    std::vector<std::string> argv = {mpirun_path(), "-np", std::to_string(ranks), "--oversubscribe"};
    if (geteuid() == 0) argv.push_back("--allow-run-as-root");
    argv.push_back(SEATMARK_BIN);
    argv.push_back("stage");
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

// A 256 MiB source staged in 1 MiB chunks to `ranks` ranks (destinations DIR/x/RANK) in the
// background, once rank 1 is writing: a test acts in the middle of the transfer. rank1_temp is
// rank 1's temporary file, whose name holds its PID.
struct TransferInProgress {
    TransferInProgress(const TempDir& t, int ranks, uint64_t seed) {
        write_random_file(t.file("big.bin"), 256u << 20, seed);
        for (int k = 0; k < ranks; ++k) fs::create_directories(t.path + "/x/" + std::to_string(k));
        run = std::make_unique<BackgroundProcess>(
            mpirun_argv(ranks, {"--source", t.file("big.bin"), "--dest", t.path + "/x/{rank}", "--chunk", "1M", "--quiet"}), mpi_env);
        rank1_temp = wait_for_temp_file(t.path + "/x/1", 30);
        REQUIRE_MESSAGE(!rank1_temp.empty(), "rank 1 never started writing");
    }
    std::unique_ptr<BackgroundProcess> run;
    std::string rank1_temp;
};

bool no_temp_files(const std::string& dir) {
    if (!fs::exists(dir)) return true;
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find(".seatmark-stage.") != std::string::npos) return false;
    return true;
}

}  // namespace

TEST_CASE("a file staged to 3 ranks leaves three verified copies with mode and mtime") {
    TempDir t;
    write_file(t.file("asset.bin"), random_bytes(3 << 20, 1));
    ::chmod(t.file("asset.bin").c_str(), 0640);
    auto r = stage(3, {"--source", t.file("asset.bin"), "--dest", t.path + "/x/{rank}", "--post-verify", "--chunk", "256K",
                       "--json", t.file("s.json")});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (int k = 0; k < 3; ++k) check_copy(t.file("asset.bin"), t.path + "/x/" + std::to_string(k) + "/asset.bin");
    auto json = read_file(t.file("s.json"));
    CHECK(json.find("\"copies_written\": 3") != std::string::npos);
    CHECK(json.find("\"post_verify\"") != std::string::npos);
    // The source's XXH3, as run.assets takes it.
    CHECK(json.find("\"xxh3\": \"" + seatmark::xxh3_hex(xxh3(t.file("asset.bin"))) + "\"") != std::string::npos);
    CHECK(no_temp_files(t.path + "/x"));
}

TEST_CASE("a nested directory tree is staged whole") {
    TempDir t;
    fs::create_directories(t.path + "/tree/a/b/c");
    fs::create_directories(t.path + "/tree/empty_parent/d");
    write_file(t.path + "/tree/top.txt", "top");
    write_file(t.path + "/tree/a/one.bin", random_bytes(100000, 2));
    write_file(t.path + "/tree/a/b/c/deep.bin", random_bytes(700000, 3));
    write_file(t.path + "/tree/empty_parent/d/zero", "");
    auto r = stage(2, {"--source", t.path + "/tree", "--dest", t.path + "/x/{rank}", "--chunk", "64K"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    // The same through the page cache instead of O_DIRECT.
    r = stage(2, {"--source", t.path + "/tree", "--dest", t.path + "/y/{rank}", "--chunk", "64K", "--buffered"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (int k = 0; k < 2; ++k)
        for (auto rel : {"top.txt", "a/one.bin", "a/b/c/deep.bin", "empty_parent/d/zero"})
            for (auto root : {"/x/", "/y/"}) check_copy(t.path + "/tree/" + rel, t.path + root + std::to_string(k) + "/tree/" + rel);
}

TEST_CASE("a second run when every host holds the file rewrites nothing, in size and checksum mode") {
    TempDir t;
    write_file(t.file("f"), random_bytes(1 << 20, 4));
    REQUIRE(stage(2, {"--source", t.file("f"), "--dest", t.path + "/x/{rank}"}).exit_code == 0);
    auto before0 = stat_of(t.path + "/x/0/f"), before1 = stat_of(t.path + "/x/1/f");
    for (std::string mode : {"size", "checksum"}) {
        auto r = stage(2, {"--source", t.file("f"), "--dest", t.path + "/x/{rank}", "--verify", mode, "--json", t.file("s.json")});
        INFO(mode << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_file(t.file("s.json")).find("\"transferred_files\": 0") != std::string::npos);
        auto a0 = stat_of(t.path + "/x/0/f"), a1 = stat_of(t.path + "/x/1/f");
        CHECK(a0.st_ino == before0.st_ino);
        CHECK(a1.st_ino == before1.st_ino);
        CHECK(a0.st_ctim.tv_nsec == before0.st_ctim.tv_nsec);
        CHECK(a1.st_ctim.tv_sec == before1.st_ctim.tv_sec);
    }
}

TEST_CASE("a same-size file with other content is replaced in checksum mode, not in size mode, only those hosts receive") {
    TempDir t;
    write_file(t.file("f"), random_bytes(500000, 5));
    REQUIRE(stage(4, {"--source", t.file("f"), "--dest", t.path + "/x/{rank}"}).exit_code == 0);
    auto wrong = random_bytes(500000, 6);
    for (int k : {1, 3}) write_file(t.path + "/x/" + std::to_string(k) + "/f", wrong);
    REQUIRE(stage(4, {"--source", t.file("f"), "--dest", t.path + "/x/{rank}", "--verify", "size"}).exit_code == 0);
    for (int k : {1, 3}) CHECK(read_file(t.path + "/x/" + std::to_string(k) + "/f") == wrong);
    auto ino0 = stat_of(t.path + "/x/0/f").st_ino, ino2 = stat_of(t.path + "/x/2/f").st_ino;
    auto r = stage(4, {"--source", t.file("f"), "--dest", t.path + "/x/{rank}", "--verify", "checksum", "--post-verify",
                       "--json", t.file("s.json")});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (int k = 0; k < 4; ++k) check_copy(t.file("f"), t.path + "/x/" + std::to_string(k) + "/f");
    CHECK(stat_of(t.path + "/x/0/f").st_ino == ino0);  // the good copies were left alone
    CHECK(stat_of(t.path + "/x/2/f").st_ino == ino2);
    auto json = read_file(t.file("s.json"));
    CHECK(json.find("\"copies_needed\": 2") != std::string::npos);
    CHECK(json.find("\"copies_written\": 2") != std::string::npos);
}

TEST_CASE("a missing source stops every rank with exit 2 and the path") {
    TempDir t;
    auto r = stage(3, {"--source", t.file("no-such-asset"), "--dest", t.path + "/x/{rank}"});
    CHECK(r.exit_code == 2);
    std::string all = r.out + r.err;
    size_t n = 0;
    for (size_t p = 0; (p = all.find("no-such-asset: No such file", p)) != std::string::npos; ++p) ++n;
    // Every rank stops with the same input error, but mpirun ends the remaining ranks as soon as
    // the first exits non-zero, so how many get to print it is a race: at least one does.
    CHECK(n >= 1);
    CHECK(n <= 3);
    CHECK_FALSE(fs::exists(t.path + "/x"));
}

TEST_CASE("a destination not writable on one rank fails the run, names host and reason, others keep good copies") {
    TempDir t;
    write_file(t.file("f"), random_bytes(2 << 20, 7));
    fs::create_directories(t.path + "/x");
    write_file(t.path + "/x/1", "a regular file where rank 1 wants a directory");
    auto r = stage(3, {"--source", t.file("f"), "--dest", t.path + "/x/{rank}"});
    INFO(r.err);
    CHECK(r.exit_code != 0);
    char host[256] = {};
    gethostname(host, sizeof host);
    CHECK(r.err.find("rank 1") != std::string::npos);
    CHECK(r.err.find(std::string("host ") + host) != std::string::npos);
    CHECK(r.err.find("Not a directory") != std::string::npos);
    check_copy(t.file("f"), t.path + "/x/0/f");
    check_copy(t.file("f"), t.path + "/x/2/f");
    CHECK(read_file(t.path + "/x/1") == "a regular file where rank 1 wants a directory");
    CHECK(no_temp_files(t.path + "/x"));
}

TEST_CASE("a destination that is the source itself is left alone") {
    TempDir t;
    write_file(t.file("f"), random_bytes(300000, 8));
    auto st = stat_of(t.file("f"));
    const uint64_t hash = xxh3(t.file("f"));
    auto r = stage(1, {"--source", t.file("f"), "--dest", t.path, "--verify", "checksum"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    auto after = stat_of(t.file("f"));
    CHECK(after.st_ino == st.st_ino);  // not replaced
    CHECK(after.st_size == st.st_size);  // nor truncated or rewritten
    CHECK(after.st_mtim.tv_sec == st.st_mtim.tv_sec);
    CHECK(after.st_mtim.tv_nsec == st.st_mtim.tv_nsec);
    CHECK(xxh3(t.file("f")) == hash);
    CHECK(no_temp_files(t.path));
}

TEST_CASE("a full destination fails on that rank only, with no file under the final name") {
    TempDir t;
    fs::create_directories(t.path + "/x/0");
    fs::create_directories(t.path + "/x/1");
    auto m = run_process({"/bin/mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", t.path + "/x/1"}, 10);
    if (m.exit_code != 0) {
        SEATMARK_SKIP("cannot mount a 1 MiB tmpfs here (" << m.err << ")");
    }
    write_file(t.file("f"), random_bytes(3 << 20, 9));
    auto r = stage(2, {"--source", t.file("f"), "--dest", t.path + "/x/{rank}"});
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("rank 1") != std::string::npos);
    CHECK(r.err.find("space") != std::string::npos);
    check_copy(t.file("f"), t.path + "/x/0/f");
    CHECK_FALSE(fs::exists(t.path + "/x/1/f"));
    CHECK(no_temp_files(t.path + "/x/1"));
    run_process({"/bin/umount", t.path + "/x/1"}, 10);
}

TEST_CASE("without mpirun it stages locally as one process") {
    TempDir t;
    write_file(t.file("f"), random_bytes(200000, 10));
    auto r = run_process(seatmark_argv({"stage", "--source", t.file("f"), "--dest", t.path + "/local/{host}", "--quiet"}), 20);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    char host[256] = {};
    gethostname(host, sizeof host);
    check_copy(t.file("f"), t.path + "/local/" + host + "/f");
}

TEST_CASE("several ranks on one host: one writer per host, the others wait") {
    TempDir t;
    write_file(t.file("f"), random_bytes(400000, 11));
    auto r = stage(3, {"--source", t.file("f"), "--dest", t.path + "/shared", "--json", t.file("s.json")});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    check_copy(t.file("f"), t.path + "/shared/f");
    auto json = read_file(t.file("s.json"));
    CHECK(json.find("\"writers\": 1") != std::string::npos);
    CHECK(json.find("\"hosts\": 1") != std::string::npos);
    CHECK(json.find("\"copies_written\": 1") != std::string::npos);
}

TEST_CASE("a manifest lists the files to stage, and bad flags are input errors") {
    TempDir t;
    write_file(t.file("a"), "alpha");
    write_file(t.file("b"), random_bytes(70000, 12));
    write_file(t.file("list.txt"), "# assets\na\n\n" + t.file("b") + "\n");
    auto r = stage(2, {"--manifest", t.file("list.txt"), "--dest", t.path + "/x/{rank}", "--post-verify"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (int k = 0; k < 2; ++k) {
        check_copy(t.file("a"), t.path + "/x/" + std::to_string(k) + "/a");
        check_copy(t.file("b"), t.path + "/x/" + std::to_string(k) + "/b");
    }
    auto bad = run_process(seatmark_argv({"stage", "--source", t.file("a"), "--dest", t.path + "/y", "--chunk", "12Q"}), 20);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("12Q") != std::string::npos);
    // O_DIRECT needs block-sized chunks.
    auto odd = run_process(seatmark_argv({"stage", "--source", t.file("a"), "--dest", t.path + "/y", "--chunk", "5000"}), 20);
    CHECK(odd.exit_code == 2);
    CHECK(odd.err.find("multiple of 4K") != std::string::npos);
    CHECK_FALSE(fs::exists(t.path + "/y/a"));
}

TEST_CASE("a rank killed mid-transfer leaves no partial copy under a final name, the next run cleans up and completes") {
    TempDir t;
    TransferInProgress tr(t, 3, 21);
    const std::string temp = tr.rank1_temp;
    // Rank 1's temporary file names its process: kill that one, 20 ms into its transfer.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    REQUIRE_MESSAGE(!fs::exists(t.path + "/x/1/big.bin"), "the transfer ended before the kill; the file is too small for this machine");
    REQUIRE(signal_process(pid_of_temp(temp), SIGKILL) == 0);
    auto r = tr.run->wait(60);
    INFO(r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code != 0);
    // Nothing partial under a final name anywhere; a host that finished before mpirun stopped it
    // keeps a good copy.
    CHECK_FALSE(fs::exists(t.path + "/x/1/big.bin"));
    for (int k : {0, 2})
        if (fs::exists(t.path + "/x/" + std::to_string(k) + "/big.bin")) check_copy(t.file("big.bin"), t.path + "/x/" + std::to_string(k) + "/big.bin");
    CHECK_MESSAGE(fs::exists(temp), "SIGKILL leaves the killed rank's temporary file behind");

    // The next run removes what the killed process left and stages every copy.
    auto again = stage(3, {"--source", t.file("big.bin"), "--dest", t.path + "/x/{rank}", "--json", t.file("s.json")}, 120);
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    for (int k = 0; k < 3; ++k) check_copy(t.file("big.bin"), t.path + "/x/" + std::to_string(k) + "/big.bin");
    CHECK(no_temp_files(t.path + "/x"));
    CHECK(read_file(t.file("s.json")).find("\"stale_temps_removed\": 0") == std::string::npos);
}

TEST_CASE("SIGTERM during a transfer removes the temporary file and leaves nothing under the final name") {
    TempDir t;
    write_random_file(t.file("big.bin"), 256u << 20, 22);
    fs::create_directories(t.path + "/d");
    BackgroundProcess run(seatmark_argv({"stage", "--source", t.file("big.bin"), "--dest", t.path + "/d", "--chunk", "1M", "--quiet"}));
    const std::string temp = wait_for_temp_file(t.path + "/d", 30);
    REQUIRE_MESSAGE(!temp.empty(), "the stage never started writing");
    REQUIRE_MESSAGE(!fs::exists(t.path + "/d/big.bin"), "the transfer ended before the signal; the file is too small for this machine");
    run.signal(SIGTERM);
    auto r = run.wait(30);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.signal == SIGTERM);
    CHECK_FALSE(fs::exists(t.path + "/d/big.bin"));
    CHECK(no_temp_files(t.path + "/d"));
}

void check_out_of_space_outcome(const ProcessResult& r, const TempDir& t, const std::string& dest_root) {
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("No space left on device") != std::string::npos);
    // Every copy under a final name is whole and verified; no temporary file is left.
    for (int k = 0; k < 2; ++k) {
        std::string p = dest_root + "/" + std::to_string(k) + "/f";
        if (fs::exists(p)) check_copy(t.file("f"), p);
    }
    CHECK(no_temp_files(dest_root));
}

TEST_CASE("space taken by another writer after the pre-check fails cleanly, a copy that fit is kept") {
    // Two ranks, destinations on one 12 MiB tmpfs, an 8 MiB file: each rank's pre-check sees room,
    // together they do not fit. tmpfs reserves space (fallocate), so the second fails at reservation.
    TempDir t;
    Mount m({"/bin/mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", t.path + "/fs"}, t.path + "/fs");
    if (!m.ok) {
        SEATMARK_SKIP("cannot mount a tmpfs here (" << m.why << ")");
    }
    write_random_file(t.file("f"), 8u << 20, 23);
    auto r = stage(2, {"--source", t.file("f"), "--dest", t.path + "/fs/{rank}"});
    check_out_of_space_outcome(r, t, t.path + "/fs");
    // Reserving races: one rank may get the space, or both may run out half-way and fail.
    int copies = 0;
    for (int k = 0; k < 2; ++k) copies += fs::exists(t.path + "/fs/" + std::to_string(k) + "/f");
    CHECK(copies <= 1);
    CHECK(r.err.find("cannot reserve") != std::string::npos);
}

TEST_CASE("running out of space part-way through a write (no reservation possible) fails cleanly") {
    // ext2 cannot reserve space, so the disk fills during the writes themselves.
    TempDir t;
    const std::string img = t.file("ext2.img");
    auto mk = run_process({"/bin/sh", "-c", "truncate -s 14M " + img + " && /usr/sbin/mkfs.ext2 -q -F " + img}, 30);
    REQUIRE_MESSAGE(mk.exit_code == 0, mk.err);
    Mount m({"/bin/mount", "-o", "loop", img, t.path + "/fs"}, t.path + "/fs");
    if (!m.ok) {
        SEATMARK_SKIP("cannot mount a loop file system here (" << m.why << ")");
    }
    write_random_file(t.file("f"), 8u << 20, 24);
    auto r = stage(2, {"--source", t.file("f"), "--dest", t.path + "/fs/{rank}", "--chunk", "1M"});
    check_out_of_space_outcome(r, t, t.path + "/fs");
    CHECK(r.err.find("cannot write") != std::string::npos);
}

TEST_CASE("without --quiet rank 0 says what the pre-check found and ends with the timings table") {
    TempDir t;
    write_file(t.file("f"), random_bytes(300000, 25));
    auto r = run_process(mpirun_argv(2, {"--source", t.file("f"), "--dest", t.path + "/x/{rank}"}), 20, mpi_env);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("stage: pre-check (size)") != std::string::npos);
    CHECK(r.err.find("1 of 1 files missing somewhere, 2 copies to write") != std::string::npos);
    CHECK(r.out.find("staged 1 files") != std::string::npos);
    CHECK(r.out.find("2 of 2 copies written") != std::string::npos);
    for (auto phase : {"pre-check", "transfer", "fsync", "post-verify", "total"}) CHECK(r.out.find(phase) != std::string::npos);
}

TEST_CASE("a source rewritten while it is staged fails the run, no copy mixing two versions appears") {
    TempDir t;
    TransferInProgress tr(t, 2, 26);
    REQUIRE_MESSAGE(!fs::exists(t.path + "/x/1/big.bin"), "the transfer ended first; the file is too small for this machine");
    {  // someone updates the asset in place
        FILE* f = std::fopen(t.file("big.bin").c_str(), "r+b");
        REQUIRE(f);
        std::fseek(f, 100 << 20, SEEK_SET);
        std::fputs("a newer version", f);
        std::fclose(f);
    }
    auto r = tr.run->wait(60);
    INFO(r.err);
    REQUIRE_FALSE(r.timed_out);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("changed while it was being staged") != std::string::npos);
    for (int k = 0; k < 2; ++k) CHECK_FALSE(fs::exists(t.path + "/x/" + std::to_string(k) + "/big.bin"));
    CHECK(no_temp_files(t.path + "/x"));
}
