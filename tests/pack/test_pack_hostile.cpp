// `seatmark pack` and `seatmark session --model` against hostile files (issue 35): an output over
// an input or a special file, a model or material library that is a device or a FIFO, --json on a
// full file system.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "model_checks.h"
#include "tests/support/mount.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {

std::string all_output(const ProcessResult& r) { return "stdout:\n" + r.out + "\nstderr:\n" + r.err; }

// A small OBJ (one triangle) naming `mtllib`.
void write_obj(const std::string& path, const std::string& mtllib) {
    write_file(path, (mtllib.empty() ? "" : "mtllib " + mtllib + "\n") + "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n");
}

bool is_fifo(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

}  // namespace

TEST_CASE("pack --out or --json naming an input, a FIFO or a device: exit 2 before any import, nothing replaced") {
    // Issue 35: `seatmark pack a.obj --out a.obj` silently replaced the model with the pack.
    TempDir dir;
    write_obj(dir.file("a.obj"), "");
    const std::string model = read_file(dir.file("a.obj"));
    REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
    struct Case {
        std::vector<std::string> args;
        std::string named;
    };
    for (const Case& c : {Case{{"--out", dir.file("a.obj")}, "--out " + dir.file("a.obj") + ": is one of this command's inputs"},
                          Case{{"--out", dir.file("fifo")}, "--out " + dir.file("fifo") + ": is not a regular file"},
                          Case{{"--out", "/dev/null"}, "--out /dev/null: is not a regular file"},
                          Case{{"--out", dir.file("p.smpack"), "--json", dir.file("a.obj")},
                               "--json " + dir.file("a.obj") + ": is one of this command's inputs"}}) {
        std::vector<std::string> a = {"pack", dir.file("a.obj"), "--quiet"};
        a.insert(a.end(), c.args.begin(), c.args.end());
        auto r = run_process(seatmark_argv(a), 60);
        INFO(all_output(r));
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(c.named) != std::string::npos);
    }
    CHECK(read_file(dir.file("a.obj")) == model);
    CHECK(is_fifo(dir.file("fifo")));
    CHECK_FALSE(fs::exists(dir.file("p.smpack")));
    // The same file by another name (a hard link) is the same input.
    REQUIRE(::link(dir.file("a.obj").c_str(), dir.file("b.obj").c_str()) == 0);
    auto r = run_process(seatmark_argv({"pack", dir.file("a.obj"), "--out", dir.file("b.obj"), "--quiet"}), 60);
    CHECK(r.exit_code == 2);
    CHECK(read_file(dir.file("a.obj")) == model);
}

TEST_CASE("pack: a model or an OBJ's mtllib that is /dev/zero or a FIFO is refused at once, naming it") {
    // Issue 35: these were read without limit (gigabytes of memory) or waited for a writer forever.
    TempDir dir;
    REQUIRE(::mkfifo(dir.file("fifo.obj").c_str(), 0600) == 0);
    REQUIRE(::mkfifo(dir.file("fifo.mtl").c_str(), 0600) == 0);
    fs::create_symlink("/dev/zero", dir.file("zero.stl"));
    write_obj(dir.file("zero-mtl.obj"), "/dev/zero");
    write_obj(dir.file("fifo-mtl.obj"), "fifo.mtl");
    struct Case {
        std::string input, named;
    };
    for (const Case& c : {Case{dir.file("fifo.obj"), dir.file("fifo.obj") + ": cannot read the model: it is not a regular file but a FIFO"},
                          Case{dir.file("zero.stl"), dir.file("zero.stl") + ": cannot read the model: it is not a regular file but a device"},
                          Case{dir.file("zero-mtl.obj"), "/dev/zero: cannot read the material library (mtllib): it is not a regular file"},
                          Case{dir.file("fifo-mtl.obj"), dir.file("fifo.mtl") + ": cannot read the material library (mtllib)"}}) {
        CAPTURE(c.input);
        auto r = run_process(seatmark_argv({"pack", c.input, "--out", dir.file("out.smpack"), "--quiet"}), 30);
        INFO(all_output(r));
        CHECK_FALSE(r.timed_out);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(c.named) != std::string::npos);
    }
    // A material library that is a regular file still colours the model.
    write_file(dir.file("red.mtl"), "newmtl red\nKd 1 0 0\n");
    write_obj(dir.file("red.obj"), "red.mtl");
    CHECK(pack_json({dir.file("red.obj"), "--out", dir.file("red.smpack")}).is_object());
}

TEST_CASE("session --model /dev/zero or a FIFO: exit 2 at once, not hashing forever") {
    // Issue 35: the session hashed /dev/zero at 100 % CPU and ignored SIGTERM.
    TempDir dir;
    REQUIRE(::mkfifo(dir.file("fifo.stl").c_str(), 0600) == 0);
    for (const std::string& model : {std::string("/dev/zero"), dir.file("fifo.stl")}) {
        CAPTURE(model);
        auto r = run_process(seatmark_argv({"session", "--model", model, "--duration", "1s", "--quiet"}), 30,
                             {"SEATMARK_PACK_CACHE=" + dir.file("cache")});
        INFO(all_output(r));
        CHECK_FALSE(r.timed_out);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(model) != std::string::npos);
        CHECK(r.err.find("not a regular file") != std::string::npos);
    }
}

TEST_CASE("pack --json on a full file system: exit 7 with a message, no 0-byte file") {
    // Issue 35: exit 0, a 0-byte file and no message.
    if (::geteuid() != 0) SEATMARK_SKIP("mounting a tmpfs needs root");
    TempDir dir;
    Mount m({"/bin/mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", dir.file("full")}, dir.file("full"));
    if (!m.ok) SEATMARK_SKIP("cannot mount a tmpfs here: " + m.why);
    (void)run_process({"/bin/sh", "-c", "cat /dev/zero > \"$0\"/filler", m.dir});
    auto r = run_process(seatmark_argv({"pack", models + "STL/Spider_binary.stl", "--out", dir.file("s.smpack"), "--json",
                                        m.dir + "/out.json", "--quiet"}),
                         120);
    INFO(all_output(r));
    CHECK(r.exit_code == 7);
    CHECK(r.err.find("--json " + m.dir + "/out.json: cannot write: No space left on device") != std::string::npos);
    CHECK_FALSE(fs::exists(m.dir + "/out.json"));
}
