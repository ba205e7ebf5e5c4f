#pragma once
// `seatmark launch --users FILE`: the test users a launcher logs on as, one per line
// "USER:PASSWORD" (chpasswd's format; "DOMAIN\USER:PASSWORD" for a Windows domain), '#' starts a
// comment. The password is everything after the first ':' (it may itself hold ':').
#include <string>
#include <vector>

namespace seatmark::launch {

struct TestUser {
    std::string user, password, domain;
    int line = 0;  // where it came from, for messages
};

// Throws InputError naming FILE:LINE and what was expected.
std::vector<TestUser> read_users_file(const std::string& path);
std::vector<TestUser> parse_users(const std::string& text, const std::string& name);

}  // namespace seatmark::launch
