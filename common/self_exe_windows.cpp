#include <windows.h>

#include <filesystem>
#include <vector>

#include "common/self_exe.h"
#include "common/win_text.h"

namespace seatmark {

std::string self_exe_path() {
    std::vector<wchar_t> buf(MAX_PATH);
    for (;;) {
        DWORD n = GetModuleFileNameW(nullptr, buf.data(), DWORD(buf.size()));
        if (n == 0) return "seatmark";
        if (n < buf.size()) return utf8(std::wstring(buf.data(), n));
        buf.resize(buf.size() * 2);  // a long path (\\?\ or a deep folder)
    }
}

std::string sibling_exe(const std::string& name) {
    std::filesystem::path self = std::filesystem::path(wide(self_exe_path()));
    std::filesystem::path exe = std::filesystem::path(wide(name));
    if (!exe.has_extension()) exe += L".exe";
    return utf8((self.has_parent_path() ? self.parent_path() / exe : exe).wstring());
}

uint32_t current_pid() { return static_cast<uint32_t>(GetCurrentProcessId()); }

std::string host_name() {
    // The NetBIOS name: what an AVD host pool lists, Task Manager shows and WTS reports.
    wchar_t buf[MAX_COMPUTERNAME_LENGTH + 1];
    DWORD n = MAX_COMPUTERNAME_LENGTH + 1;
    if (!GetComputerNameW(buf, &n)) return "";
    return utf8(std::wstring(buf, n));
}

}  // namespace seatmark
