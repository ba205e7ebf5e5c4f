// The token file's readers on POSIX (common/token_file_posix.cpp): group or others able to read
// it is warned about with the chmod that fixes it. The Windows access-list check is
// tests/windows/test_token_file_windows.cpp (run under Wine).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "common/join_auth.h"
#include "tests/support/process.h"

using namespace seatmark;

TEST_CASE("token file readable by group or others: warned with chmod 600, owner-only is quiet") {
    test::TempDir dir;
    const std::string f = dir.file("token");
    test::write_file(f, "abc123\n");
    REQUIRE(::chmod(f.c_str(), 0600) == 0);
    CHECK(join::token_file_warning(f).empty());
    for (mode_t m : {0644, 0640, 0604}) {
        REQUIRE(::chmod(f.c_str(), m) == 0);
        const std::string w = join::token_file_warning(f);
        CHECK(w.find("can be read by other users") != std::string::npos);
        CHECK(w.find("chmod 600 " + f) != std::string::npos);
    }
    CHECK(join::token_file_warning(dir.file("missing")).empty());  // read_token_file says it is missing
}
