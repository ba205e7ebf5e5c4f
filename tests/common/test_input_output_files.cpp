// The rules for every file seatmark reads (common/input_file.h) and writes (common/output_file.h),
// and the bound on TOML nesting (common/toml_nesting.cpp): special files, a command's own inputs,
// a full disk, a key nested 40,000 levels. Issue 35, causes 2, 5, 6 and 10.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/file_hash.h"
#include "common/input_file.h"
#include "common/output_file.h"
#include "common/toml_util.h"
#include "tests/support/input_error.h"
#include "tests/support/mount.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
using test::contains;
using test::error_of;
namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string fifo_in(const test::TempDir& dir) {
    const std::string p = dir.file("fifo");
    REQUIRE(::mkfifo(p.c_str(), 0600) == 0);
    return p;
}

// a.a.a ... = 1, nested `levels` deep.
std::string deep_dotted(size_t levels) {
    std::string s = "name = \"x\"\n";
    for (size_t i = 0; i < levels; ++i) s += "a.";
    return s + "a = 1\n";
}

}  // namespace

TEST_CASE("inputs: a device, a FIFO or a directory is refused at once, naming the file, no read without end") {
    test::TempDir dir;
    const auto t0 = std::chrono::steady_clock::now();
    // /dev/zero used to fill gigabytes of memory, a FIFO with no writer to block forever.
    for (const std::string& p : {std::string("/dev/zero"), std::string("/dev/urandom"), fifo_in(dir), dir.path}) {
        CAPTURE(p);
        const std::string e = error_of([&] { (void)read_input_text(p, "plan", max_config_bytes); });
        CHECK(contains(e, p + ": cannot read the plan: it is "));
        CHECK((contains(e, "not a regular file") || contains(e, "a directory")));
        CHECK_THROWS_AS(InputFile{p}, FileError);
    }
    CHECK(contains(error_of([&] { (void)read_input_text(dir.file("fifo"), "plan", max_config_bytes); }), "FIFO"));
    CHECK(seconds_since(t0) < 10);  // refused, not read; the bound is only a sanity one
    // Hashing (a session's --model) goes through the same open.
    CHECK_THROWS_AS((void)file_xxh3("/dev/zero"), std::runtime_error);
}

TEST_CASE("inputs: a regular file larger than its kind's limit is named with the limit, one within it reads whole") {
    test::TempDir dir;
    test::write_file(dir.file("big.toml"), std::string(70 * 1024, '#'));
    const std::string e = error_of([&] { (void)read_input_text(dir.file("big.toml"), "token file", max_token_bytes); });
    CHECK(contains(e, dir.file("big.toml") + ": cannot read the token file: it is 70.0 KiB"));
    CHECK(contains(e, "at most 64.0 KiB"));
    CHECK(read_input_text(dir.file("big.toml"), "plan", max_config_bytes).size() == 70 * 1024);
    test::write_file(dir.file("empty"), "");
    CHECK(read_input_text(dir.file("empty"), "plan", max_config_bytes).empty());
}

TEST_CASE("hashing asks its stop callback between blocks and gives up when told") {
    test::TempDir dir;
    test::write_file(dir.file("m.bin"), std::string(9u << 20, 'x'));  // three 4 MiB blocks
    int asked = 0;
    CHECK_THROWS_AS((void)file_xxh3(dir.file("m.bin"), [&] { return ++asked == 2; }), HashStopped);
    CHECK(asked == 2);
    CHECK(file_xxh3(dir.file("m.bin"), [] { return false; }) == file_xxh3(dir.file("m.bin")));
}

TEST_CASE("outputs: never over an input (by any name), a device, a FIFO or a directory, while a new or regular file is fine") {
    test::TempDir dir;
    test::write_file(dir.file("run.db"), "the run's data");
    note_input(dir.file("run.db"));
    REQUIRE(::link(dir.file("run.db").c_str(), dir.file("hard.db").c_str()) == 0);
    fs::create_symlink(dir.file("run.db"), dir.file("soft.db"));
    for (const std::string& p : {dir.file("run.db"), dir.file("hard.db"), dir.file("soft.db"), dir.path + "/./run.db"}) {
        CAPTURE(p);
        const std::string e = error_of([&] { write_output_file(p, "<xml/>", "--junit"); });
        CHECK(contains(e, "--junit " + p + ": is "));
        CHECK(contains(e, "this command"));
        CHECK(contains(e, "give another file name"));
    }
    CHECK(test::read_file(dir.file("run.db")) == "the run's data");

    const std::string fifo = fifo_in(dir);
    for (const std::string& p : {std::string("/dev/null"), fifo, dir.path}) {
        CAPTURE(p);
        CHECK_THROWS_AS(write_output_file(p, "x", "--out"), InputError);
        CHECK_THROWS_AS(check_output_path(p, "--out"), InputError);
    }
    struct stat st {};
    REQUIRE(::lstat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));  // still the FIFO, not a regular file put in its place

    // check_output_path notes the inputs it is given: refused before the long work.
    test::write_file(dir.file("refs.toml"), "x");
    CHECK(contains(error_of([&] { check_output_path(dir.file("refs.toml"), "--junit", {dir.file("refs.toml")}); }),
                   "--junit " + dir.file("refs.toml") + ": is one of this command's inputs"));

    write_output_file(dir.file("new.xml"), "one");
    write_output_file(dir.file("new.xml"), "two");
    CHECK(test::read_file(dir.file("new.xml")) == "two");
    // Through a link to a regular file: the file is replaced, the link stays a link.
    fs::create_symlink(dir.file("new.xml"), dir.file("link.xml"));
    write_output_file(dir.file("link.xml"), "three");
    CHECK(fs::is_symlink(dir.file("link.xml")));
    CHECK(test::read_file(dir.file("new.xml")) == "three");
    fs::create_symlink(dir.file("nothing"), dir.file("dangling.xml"));
    CHECK_THROWS_AS(write_output_file(dir.file("dangling.xml"), "x"), InputError);
}

TEST_CASE("outputs: an input removed since it was read does not refuse a new file that took its number") {
    // Inodes are reused at once (tmpfs, ext4): the noted name must still name the file.
    test::TempDir dir;
    for (int i = 0; i < 200; ++i) {  // also past the point where forgotten inputs are pruned
        const std::string in = dir.file("in" + std::to_string(i));
        test::write_file(in, "x");
        (void)read_input_text(in, "plan", max_config_bytes);
        fs::remove(in);
        const std::string out = dir.file("out" + std::to_string(i));
        test::write_file(out, "an earlier output");  // likely on in's number
        CHECK_NOTHROW(write_output_file(out, "y"));
    }
    test::write_file(dir.file("kept"), "x");
    (void)read_input_text(dir.file("kept"), "plan", max_config_bytes);
    CHECK_THROWS_AS(write_output_file(dir.file("kept"), "y"), InputError);
}

TEST_CASE("outputs: an OutputFile left without commit leaves the target as it was and no temporary file") {
    test::TempDir dir;
    test::write_file(dir.file("a.smpack"), "old pack");
    {
        OutputFile f(dir.file("a.smpack"));
        f.write("half of a new one");
    }
    CHECK(test::read_file(dir.file("a.smpack")) == "old pack");
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

TEST_CASE("outputs: a full file system is exit 7 with a message, the old file stays and no 0-byte file is left") {
    if (::geteuid() != 0) SEATMARK_SKIP("mounting a tmpfs needs root");
    test::TempDir dir;
    test::Mount m({"/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir.file("full")}, dir.file("full"));
    if (!m.ok) SEATMARK_SKIP("cannot mount a tmpfs here: " + m.why);
    write_output_file(m.dir + "/out.json", "{\"old\": true}\n");
    const std::string big(256 * 1024, 'x');
    try {
        write_output_file(m.dir + "/out.json", big, "--json");
        FAIL("a write to a full file system was taken");
    } catch (const ExitError& e) {
        CHECK(e.code == exit_code::output_error);
        CHECK(contains(e.what(), "--json " + m.dir + "/out.json: cannot write: No space left on device"));
    }
    CHECK(test::read_file(m.dir + "/out.json") == "{\"old\": true}\n");
    CHECK_THROWS_AS(write_output_file(m.dir + "/new.json", big), ExitError);
    CHECK_FALSE(fs::exists(m.dir + "/new.json"));
    CHECK(std::distance(fs::directory_iterator(m.dir), fs::directory_iterator()) == 1);
}

TEST_CASE("TOML: a key nested 40,000 levels is refused before toml++ recurses, naming the file and line") {
    for (const std::string& text :
         {deep_dotted(40000), "name = \"x\"\n[" + deep_dotted(40000).substr(11, 80000) + "]\n",
          "name = \"x\"\n\nx = " + std::string(300, '[') + std::string(300, ']') + "\n"}) {
        const std::string e = error_of([&] { (void)toml_util::parse(text, "deep.toml"); });
        CHECK(contains(e, "deep.toml:"));
        CHECK(contains(e, "TOML nested deeper than 64 levels"));
    }
    // Levels add up across a header, dotted keys, inline tables and arrays.
    std::string mixed = "[" + deep_dotted(20).substr(11, 40) + "b]\nx = { ";
    for (int i = 0; i < 20; ++i) mixed += "c.";
    mixed += "d = [[{ ";
    for (int i = 0; i < 20; ++i) mixed += "e.";
    mixed += "f = 1 }]] }\n";
    CHECK(contains(error_of([&] { (void)toml_util::parse(mixed, "m.toml"); }), "m.toml:2: TOML nested deeper"));
    // At the limit it parses: dots and brackets inside strings and comments are not levels.
    CHECK_NOTHROW((void)toml_util::parse(deep_dotted(62), "ok.toml"));
    CHECK_NOTHROW((void)toml_util::parse("a = \"" + std::string(500, '.') + std::string(500, '[') + "\"\nb = '''\n" +
                                             std::string(500, '{') + "\n'''\n# " + std::string(500, '[') + "\n" +
                                             "c = [1.5, 2.5, " + std::string(200, ' ') + "3.5] # .[.{\n",
                                         "ok.toml"));
}

TEST_CASE("TOML: every TOML file in the source tree (profiles, plans, examples) is within the nesting bound") {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(SEATMARK_SOURCE_DIR)) {
        const std::string p = e.path().string();
        if (e.path().extension() != ".toml" || p.find("/build") != std::string::npos || p.find("/.git/") != std::string::npos)
            continue;
        CAPTURE(p);
        CHECK_NOTHROW(toml_util::check_nesting(test::read_file(p), p));
        ++n;
    }
    CHECK(n >= 7);
}
