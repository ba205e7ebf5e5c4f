// `seatmark check`: references as ReFrame keeps them, strict parsing, exit codes, JUnit XML.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "common/errors.h"
#include "report/analysis.h"
#include "report/check.h"
#include "report/references.h"
#include "tests/report/golden.h"
#include "tests/support/mount.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::report;
namespace golden = seatmark::test::golden;

namespace {

// The counts in <testsuite tests="N" failures="F">, parsed minimally.
struct Junit {
    int tests = -1, failures = -1, testcases = 0, failure_elements = 0;
};
Junit parse_junit(const std::string& xml) {
    Junit j;
    std::smatch m;
    if (std::regex_search(xml, m, std::regex("<testsuite [^>]*tests=\"(\\d+)\"[^>]*failures=\"(\\d+)\""))) {
        j.tests = std::stoi(m[1]);
        j.failures = std::stoi(m[2]);
    }
    auto count = [&](const std::string& what) {
        int n = 0;
        for (size_t p = xml.find(what); p != std::string::npos; p = xml.find(what, p + 1)) ++n;
        return n;
    };
    j.testcases = count("<testcase ");
    j.failure_elements = count("<failure ");
    return j;
}

std::string refs_with(const std::string& body) { return "[[reference]]\n" + body; }

// Parses `text` as references and returns the InputError message ("" when it parsed).
std::string parse_error(const std::string& text) {
    try {
        parse_references(text, "refs.toml");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

struct Golden {
    test::TempDir dir;
    std::string db = dir.file("golden.db");
    Golden() { golden::write(db, golden::crafted()); }
};

}  // namespace

TEST_CASE("the documented example references parse and pass on the crafted run, with JUnit XML") {
    Golden g;
    const std::string example = std::string(SEATMARK_SOURCE_DIR) + "/report/examples/references.toml";
    References refs = load_references(example);
    CHECK(refs.require_finished);
    REQUIRE(refs.entries.size() == 3);
    CHECK(refs.entries[0].bounds.size() == 4);
    CHECK_FALSE(refs.entries[0].step);
    CHECK(refs.entries[1].step == 4u);
    CHECK(refs.entries[2].host == "gpu-host-42");

    const std::string junit = g.dir.file("check.xml");
    auto r = test::run_process(test::seatmark_argv({"check", g.db, "--references", example, "--junit", junit}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("PASS") != std::string::npos);
    CHECK(r.out.find("FAIL") == r.out.find("FAIL: "));  // no failing row
    CHECK(r.out.find("max_density") != std::string::npos);
    Junit j = parse_junit(test::read_file(junit));
    // run_finished + 4 at max + 3 at step 4 (the gpu-host-42 entry does not apply to golden-host).
    CHECK(j.tests == 8);
    CHECK(j.failures == 0);
    CHECK(j.testcases == 8);
    CHECK(j.failure_elements == 0);
}

TEST_CASE("a reference the run misses fails the check: exit 1, the row says why, JUnit counts it") {
    Golden g;
    test::write_file(g.dir.file("refs.toml"), refs_with(R"(step = "max"
max_density = { value = 8, lower = -0.1, upper = "inf", unit = "sessions" }
p95_ms = [30.0, "-inf", 0.1, "ms"]
[[reference]]
step = 7
p95_ms = [30.0, "-inf", 0.1, "ms"]
)"));
    const std::string junit = g.dir.file("check.xml");
    auto r = test::run_process(test::seatmark_argv({"check", g.db, "-r", g.dir.file("refs.toml"), "--junit", junit}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    // max density 6 < 8 * 0.9 = 7.2; step 7's p95 40 ms > 33 ms; step max (6) p95 30 ms passes.
    CHECK(r.out.find("max_density 6 sessions is outside [7.2, inf]") != std::string::npos);
    CHECK(r.out.find("p95_ms 40 ms is outside [-inf, 33]") != std::string::npos);
    CHECK(r.out.find("4 checks: 2 passed, 2 failed: FAIL") != std::string::npos);
    Junit j = parse_junit(test::read_file(junit));
    CHECK(j.tests == 4);
    CHECK(j.failures == 2);
    CHECK(j.failure_elements == 2);
}

TEST_CASE("an exact-host reference replaces the '*' one, other hosts' references do not apply") {
    Golden g;
    test::write_file(g.dir.file("refs.toml"), R"(
[[reference]]
host = "*"
max_density = { value = 8, lower = 0, upper = "inf" }
[[reference]]
host = "golden-host"
max_density = { value = 6, lower = 0, upper = 0 }
[[reference]]
host = "elsewhere"
max_density = { value = 100, lower = 0, upper = 0 }
)");
    auto r = test::run_process(test::seatmark_argv({"check", g.db, "-r", g.dir.file("refs.toml")}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("2 checks: 2 passed, 0 failed: PASS") != std::string::npos);

    // No entry for this host at all: that is a failure, not a silent pass.
    test::write_file(g.dir.file("other.toml"), refs_with("host = \"elsewhere\"\nmax_density = [1, 0, \"inf\"]\n"));
    r = test::run_process(test::seatmark_argv({"check", g.db, "-r", g.dir.file("other.toml")}));
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("no reference in") != std::string::npos);
}

TEST_CASE("per-profile references, failures at the crash step, and an unfinished run") {
    Golden g;
    test::write_file(g.dir.file("refs.toml"), R"(require_finished = true
[[reference]]
profile = "ci-tiny"
step = 4
failures = { value = 1, lower = 0, upper = 0, unit = "sessions" }
fps_median = [45.4545, -0.001, 0.001, "fps"]
[[reference]]
profile = "designer-medium"
step = 4
fps_median = [45, -0.1, 0.1]
)");
    auto r = test::run_process(test::seatmark_argv({"check", g.db, "-r", g.dir.file("refs.toml")}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("no session of profile 'designer-medium'") != std::string::npos);
    CHECK(r.out.find("4 checks: 3 passed, 1 failed") != std::string::npos);

    // A run whose writer died fails the check (require_finished), whatever its figures.
    golden::Spec spec = golden::crafted();
    spec.finish = false;
    golden::write(g.dir.file("crashed.db"), spec);
    test::write_file(g.dir.file("min.toml"), refs_with("max_density = [6, 0, \"inf\"]\n"));
    r = test::run_process(test::seatmark_argv({"check", g.dir.file("crashed.db"), "-r", g.dir.file("min.toml")}));
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("the run did not finish") != std::string::npos);
    test::write_file(g.dir.file("lenient.toml"), "require_finished = false\n" + refs_with("max_density = [6, 0, \"inf\"]\n"));
    r = test::run_process(test::seatmark_argv({"check", g.dir.file("crashed.db"), "-r", g.dir.file("lenient.toml")}));
    CHECK(r.exit_code == 0);
}

TEST_CASE("bad references are rejected with file:line:col and exit 2, before the database is read") {
    CHECK(parse_error(refs_with("p95 = [30, \"-inf\", 0.1]\n")).find("refs.toml:2:1: unknown key 'reference[0].p95'") == 0);
    CHECK(parse_error(refs_with("p95_ms = [30, \"-inf\", 0.1]\nmax_densty = [1, 0, 0]\n"))
              .find("did you mean 'max_density'?") != std::string::npos);
    CHECK(parse_error(refs_with("p95_ms = [30, 0.5, 0.1]\n")).find("refs.toml:2:15: key 'reference[0].p95_ms[1]': expected a fraction from -1 to 0") == 0);
    // A float beyond int64 as the step (fuzz_references: toml++ casts it to int64 unchecked; UBSan caught it).
    CHECK(parse_error(refs_with("step = 411e111\n")).find("a session count (an integer >= 1)") != std::string::npos);
    CHECK(parse_error(refs_with("p95_ms = { value = 30, lower = -0.1, upper = -2 }\n"))
              .find("key 'reference[0].p95_ms.upper': expected a fraction >= 0") != std::string::npos);
    CHECK(parse_error(refs_with("p95_ms = { value = 30, upper = 0.1 }\n")).find("missing key 'reference[0].p95_ms.lower'") != std::string::npos);
    CHECK(parse_error(refs_with("p95_ms = [30, \"-inf\", 0.1, \"FPS\"]\n")).find("unit 'FPS' does not match p95_ms, which is in ms") != std::string::npos);
    CHECK(parse_error(refs_with("step = \"top\"\np95_ms = [30, \"-inf\", 0.1]\n")).find("refs.toml:2:8: key 'reference[0].step': expected a session count") == 0);
    CHECK(parse_error(refs_with("step = 4\nmax_density = [6, 0, \"inf\"]\n")).find("max_density is a property of the whole run") != std::string::npos);
    CHECK(parse_error(refs_with("host = \"*\"\n")).find("no metric given") != std::string::npos);
    CHECK(parse_error("requre_finished = true\n").find("refs.toml:1:1: unknown key 'requre_finished'") == 0);
    CHECK(parse_error("[[reference]\n").find("refs.toml:1:") == 0);  // TOML syntax
    CHECK(parse_error("x = 1\n").find("refs.toml:1:1: unknown key 'x'") == 0);
    CHECK(parse_error(refs_with("p95_ms = [30, \"-inf\", inf, \"ms\"]\nlow1_fps = [20, -inf, inf]\n")).empty());  // TOML's inf too

    test::TempDir dir;
    test::write_file(dir.file("bad.toml"), refs_with("p95_ms = [30, 0.5, 0.1]\n"));
    // The database does not even exist: the references are read first.
    auto r = test::run_process(test::seatmark_argv({"check", dir.file("none.db"), "--references", dir.file("bad.toml")}));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("bad.toml:2:15:") != std::string::npos);
    r = test::run_process(test::seatmark_argv({"check", dir.file("none.db"), "--references", dir.file("absent.toml")}));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("absent.toml") != std::string::npos);
}

TEST_CASE("check and compare on a truncated database exit 2 with a clear message") {
    Golden g;
    std::filesystem::copy_file(g.db, g.dir.file("cut.db"));
    std::filesystem::resize_file(g.dir.file("cut.db"), std::filesystem::file_size(g.db) / 2);
    test::write_file(g.dir.file("refs.toml"), refs_with("max_density = [6, 0, \"inf\"]\n"));
    auto r = test::run_process(test::seatmark_argv({"check", g.dir.file("cut.db"), "-r", g.dir.file("refs.toml")}));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("cut.db") != std::string::npos);
    r = test::run_process(test::seatmark_argv({"compare", g.db, g.dir.file("cut.db")}));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("cut.db") != std::string::npos);
}

TEST_CASE("check --junit that cannot be written: exit 2 before reading (missing folder), 7 when the write fails") {
    Golden g;
    const std::string example = std::string(SEATMARK_SOURCE_DIR) + "/report/examples/references.toml";
    auto r = test::run_process(test::seatmark_argv({"check", g.db, "-r", example, "--junit", g.dir.file("no/x.xml")}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);  // not 1, the code of a failed check
    CHECK(r.err.find("--junit " + g.dir.file("no/x.xml")) != std::string::npos);
    CHECK(r.out.find("PASS") == std::string::npos);  // refused before the check ran

    // A full file system: a tmpfs of 8 KiB already filled (/dev/full, a device, is refused as an output now).
    if (::geteuid() != 0) SEATMARK_SKIP("mounting a tmpfs needs root");
    test::Mount m({"/bin/mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", g.dir.file("full")}, g.dir.file("full"));
    if (!m.ok) SEATMARK_SKIP("cannot mount a tmpfs here: " + m.why);
    (void)test::run_process({"/bin/sh", "-c", "cat /dev/zero > \"$0\"/filler", m.dir});
    auto full = test::run_process(test::seatmark_argv({"check", g.db, "-r", example, "--junit", m.dir + "/x.xml"}));
    INFO(full.out << full.err);
    CHECK(full.exit_code == 7);
    CHECK(full.err.find("--junit " + m.dir + "/x.xml: cannot write: No space left on device") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(m.dir + "/x.xml"));
}

TEST_CASE("check --junit over its own database or references, or a FIFO or device: exit 2, nothing written over") {
    // Issue 35: `check RUN.db --junit RUN.db` replaced the run's database with JUnit XML (exit 0).
    Golden g;
    const std::string example = std::string(SEATMARK_SOURCE_DIR) + "/report/examples/references.toml";
    const std::string before = test::read_file(g.db);
    std::filesystem::copy_file(example, g.dir.file("refs.toml"));
    REQUIRE(::link(g.db.c_str(), g.dir.file("same.db").c_str()) == 0);  // the database by another name
    REQUIRE(::mkfifo(g.dir.file("fifo").c_str(), 0600) == 0);
    for (const std::string& junit : {g.db, g.dir.file("same.db"), g.dir.file("refs.toml"), g.dir.file("fifo"),
                                     std::string("/dev/null")}) {
        CAPTURE(junit);
        auto r = test::run_process(test::seatmark_argv({"check", g.db, "-r", g.dir.file("refs.toml"), "--junit", junit}), 60);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("--junit " + junit + ": is ") != std::string::npos);
        CHECK(r.out.find("PASS") == std::string::npos);  // refused before the check ran
    }
    CHECK(test::read_file(g.db) == before);
    CHECK(test::read_file(g.dir.file("refs.toml")) == test::read_file(example));
    struct stat st {};
    REQUIRE(::lstat(g.dir.file("fifo").c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("check --references that is a folder, a device or a FIFO: exit 2 naming it, at once") {
    // Issue 35: a folder gave exit 1 and "basic_filebuf::underflow error reading the file: Is a
    // directory" with no file named; /dev/zero was read without end.
    Golden g;
    REQUIRE(::mkfifo(g.dir.file("fifo").c_str(), 0600) == 0);
    std::filesystem::create_directories(g.dir.file("refs"));
    for (const std::string& refs : {g.dir.file("refs") + "/", std::string("/dev/zero"), g.dir.file("fifo")}) {
        CAPTURE(refs);
        auto r = test::run_process(test::seatmark_argv({"check", g.db, "--references", refs}), 30);
        INFO(r.out << r.err);
        CHECK_FALSE(r.timed_out);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(refs + ": cannot read the references file: it is ") != std::string::npos);
        CHECK(r.err.find("basic_filebuf") == std::string::npos);
    }
}

TEST_CASE("a database whose stored plan nests 40,000 levels: report, check and compare end normally") {
    // Issue 35: toml++ overflowed its stack (exit 139) on the stored plan of such a file.
    test::TempDir dir;
    golden::Spec spec = golden::crafted();
    std::string deep = "name = \"deep\"\n";
    for (int i = 0; i < 40000; ++i) deep += "a.";
    spec.plan_text = deep + "a = 1\n";
    const std::string db = dir.file("deep.db");
    golden::write(db, spec);
    const std::string example = std::string(SEATMARK_SOURCE_DIR) + "/report/examples/references.toml";
    for (const auto& args : {std::vector<std::string>{"report", db, "--out", dir.file("rep"), "-q"},
                             std::vector<std::string>{"check", db, "-r", example},
                             std::vector<std::string>{"compare", db, db}}) {
        CAPTURE(args[0]);
        auto r = test::run_process(test::seatmark_argv(args), 60);
        INFO(r.out << r.err);
        CHECK(r.signal == 0);
        CHECK((r.exit_code == 0 || r.exit_code == 1));  // check may fail its references; it must not crash
    }
}
