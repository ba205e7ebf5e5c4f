// `seatmark launch --users FILE`: what it accepts and how it refuses, naming file and line.
#include <doctest/doctest.h>

#include "launch/users_file.h"
#include "tests/support/input_error.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("launch users file: users, domains, comments, passwords holding ':'") {
    const auto u = launch::parse_users("# test users\nalice:pw1\n\n  CORP\\bob:a:b:c\r\n", "users.txt");
    REQUIRE(u.size() == 2);
    CHECK(u[0].user == "alice");
    CHECK(u[0].password == "pw1");
    CHECK(u[0].line == 2);
    CHECK(u[1].domain == "CORP");
    CHECK(u[1].user == "bob");
    CHECK(u[1].password == "a:b:c");
}

TEST_CASE("launch users file: bad lines are refused with file, line and what was expected") {
    CHECK(contains(error_of([] { launch::parse_users("alice:pw\nbob\n", "u.txt"); }), "u.txt:2: expected USER:PASSWORD"));
    CHECK(contains(error_of([] { launch::parse_users(":pw\n", "u.txt"); }), "u.txt:1: expected USER:PASSWORD, the user name is empty"));
    CHECK(contains(error_of([] { launch::parse_users("alice:\n", "u.txt"); }), "empty password"));
    CHECK(contains(error_of([] { launch::parse_users("a:1\na:2\n", "u.txt"); }), "u.txt:2: user 'a' is listed twice"));
    CHECK(contains(error_of([] { launch::parse_users("# none\n", "u.txt"); }), "no users"));
    CHECK(contains(error_of([] { launch::read_users_file("/nonexistent/users"); }), "/nonexistent/users: cannot read"));
}
