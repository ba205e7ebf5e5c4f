#include "common/self_exe.h"

#include <filesystem>
#include <system_error>

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

}  // namespace seatmark
