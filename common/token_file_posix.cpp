// Who may read a token file on POSIX: its mode bits (common/join_auth.h).
#include <filesystem>

#include "common/join_auth.h"

namespace seatmark::join {

std::string token_file_warning(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    auto p = fs::status(path, ec).permissions();
    if (ec) return {};
    if ((p & (fs::perms::group_read | fs::perms::others_read)) != fs::perms::none)
        return "token file " + path + " can be read by other users; `chmod 600 " + path + "`";
    return {};
}

}  // namespace seatmark::join
