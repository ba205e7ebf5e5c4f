#include "launch/users_file.h"

#include <fstream>
#include <set>
#include <sstream>

#include "common/input_file.h"
#include "common/errors.h"

namespace seatmark::launch {

std::vector<TestUser> parse_users(const std::string& text, const std::string& name) {
    std::vector<TestUser> out;
    std::set<std::string> seen;
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            throw InputError(where(name, n) + "expected USER:PASSWORD, found no ':'");
        TestUser u;
        u.line = n;
        u.user = line.substr(first, colon - first);
        u.password = line.substr(colon + 1);
        if (const auto bs = u.user.find('\\'); bs != std::string::npos) {
            u.domain = u.user.substr(0, bs);
            u.user = u.user.substr(bs + 1);
        }
        if (u.user.empty()) throw InputError(where(name, n) + "expected USER:PASSWORD, the user name is empty");
        if (u.user.find_first_of(" \t") != std::string::npos)
            throw InputError(where(name, n) + "user name '" + u.user + "' contains a blank");
        if (u.password.empty()) throw InputError(where(name, n) + "user '" + u.user + "' has an empty password");
        if (!seen.insert(u.domain + "\\" + u.user).second)
            throw InputError(where(name, n) + "user '" + u.user + "' is listed twice (one desktop per user)");
        out.push_back(std::move(u));
    }
    if (out.empty()) throw InputError(where(name) + "no users (expected lines USER:PASSWORD)");
    return out;
}

std::vector<TestUser> read_users_file(const std::string& path) {
    return parse_users(read_input_text(path, "users file (lines USER:PASSWORD)", max_list_bytes), path);
}

}  // namespace seatmark::launch
