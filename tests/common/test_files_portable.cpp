// The rules for inputs and outputs (common/input_file.h, common/output_file.h) on what every
// platform has: a regular file, a folder, a command's own input. Built into the Windows unit tests
// too (tests/windows/CMakeLists.txt), so the Windows halves of InputFile and OutputFile run under
// Wine; FIFOs, devices and hard links: tests/common/test_input_output_files.cpp (POSIX).
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "common/errors.h"
#include "common/input_file.h"
#include "common/output_file.h"

using namespace seatmark;
namespace fs = std::filesystem;

namespace {

struct Dir {
    fs::path path;
    Dir() {
        const auto n = std::chrono::steady_clock::now().time_since_epoch().count();
        path = fs::temp_directory_path() / ("seatmark-files-" + std::to_string(n));
        fs::create_directories(path);
    }
    ~Dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void put(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("files: an input is read whole within its limit, a folder or a missing file is refused naming it") {
    Dir d;
    put(d.file("plan.toml"), "name = \"x\"\n");
    CHECK(read_input_text(d.file("plan.toml"), "plan", max_config_bytes) == "name = \"x\"\n");
    CHECK(has(error_of([&] { (void)read_input_text(d.path.string(), "plan", max_config_bytes); }),
              d.path.string() + ": cannot read the plan: it is a directory"));
    CHECK(has(error_of([&] { (void)read_input_text(d.file("none.toml"), "plan", max_config_bytes); }),
              d.file("none.toml") + ": cannot read the plan: "));
    CHECK(has(error_of([&] { (void)read_input_text(d.file("plan.toml"), "token file", 4); }), "more than any token file"));
}

TEST_CASE("files: an output replaces a regular file whole, never a folder or one of the command's inputs") {
    Dir d;
    write_output_file(d.file("out.xml"), "one");
    write_output_file(d.file("out.xml"), "two");
    CHECK(slurp(d.file("out.xml")) == "two");
    CHECK_THROWS_AS(write_output_file(d.path.string(), "x", "--junit"), InputError);

    put(d.file("run.db"), "the run's data");
    (void)read_input_text(d.file("run.db"), "run database", max_config_bytes);  // noted as an input
    CHECK(has(error_of([&] { write_output_file(d.file("run.db"), "<xml/>", "--junit"); }),
              "--junit " + d.file("run.db") + ": is one of this command's inputs"));
    CHECK(slurp(d.file("run.db")) == "the run's data");

    {  // not committed: the target as it was, and no temporary file beside it
        OutputFile f(d.file("out.xml"));
        f.write("half");
    }
    CHECK(slurp(d.file("out.xml")) == "two");
    CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()) == 2);
}
