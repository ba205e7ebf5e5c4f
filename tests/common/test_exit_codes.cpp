// One list of exit codes (common/exit_codes.h): every subcommand's --help prints it whole, and
// README's "Exit codes" section is the same text. README gave `run` 0/1/2 while its --help had 7.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/exit_codes.h"
#include "tests/support/process.h"

using namespace seatmark;

TEST_CASE("exit codes: every --help prints the one list") {
    const std::string list = exit_code::help_text();
    const std::vector<std::vector<std::string>> commands = {
        {"--help"}, {"run", "--help"}, {"demo", "--help"}, {"session", "--help"}, {"report", "--help"},
        {"check", "--help"}, {"compare", "--help"}, {"merge", "--help"}, {"pack", "--help"}, {"stage", "--help"},
        {"probe", "--help"}, {"monitor", "--help"}, {"agent", "--help"}, {"launch", "--help"}, {"export", "frames", "--help"},
        {"push", "--help"}};
    for (const auto& c : commands) {
        auto r = test::run_process(test::seatmark_argv(c), 60);
        const std::string what = c.front();
        INFO(what << "\n" << r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.find(list) != std::string::npos);
    }
}

TEST_CASE("exit codes: README's section is the same list, and README has no other") {
    const std::string readme = test::read_file(std::string(SEATMARK_SOURCE_DIR) + "/README.md");
    const auto at = readme.find("\n### Exit codes\n");
    REQUIRE(at != std::string::npos);
    const std::string section = readme.substr(at, readme.find("\n#", at + 1) - at);
    for (const auto& m : exit_code::meanings) {
        const std::string line = "\n- `" + std::to_string(m.code) + "` " + m.text + "\n";
        INFO(line);
        CHECK(section.find(line) != std::string::npos);
    }
    // Lists elsewhere in README drifted from it; they point at the section instead.
    CHECK(readme.find("Exit codes: 0") == std::string::npos);
    CHECK(readme.find("\n### Exit codes\n", at + 1) == std::string::npos);
}
