#include <unistd.h>

#include <climits>
#include <filesystem>
#include <system_error>

#include "common/self_exe.h"

namespace seatmark {

std::string self_exe_path() {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("seatmark") : p.string();
}

std::string sibling_exe(const std::string& name) {
    std::filesystem::path self = self_exe_path();
    return (self.has_parent_path() ? self.parent_path() / name : std::filesystem::path(name)).string();
}

uint32_t current_pid() { return static_cast<uint32_t>(::getpid()); }

std::string host_name() {
    char buf[HOST_NAME_MAX + 1] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "";
    return buf;
}

}  // namespace seatmark
