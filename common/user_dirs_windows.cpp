#include <windows.h>
#include <shlobj.h>

#include "common/user_dirs.h"
#include "common/win_text.h"

namespace seatmark {

std::string user_cache_dir() {
    // %LOCALAPPDATA%: per user and not roamed, the place for caches (FOLDERID_LocalAppData).
    PWSTR p = nullptr;
    std::string dir;
    if (SHGetKnownFolderPath(FOLDERID_LocalAppData, 0, nullptr, &p) == S_OK && p) dir = utf8(p);
    CoTaskMemFree(p);
    if (!dir.empty()) return dir;
    wchar_t tmp[MAX_PATH + 1];
    DWORD n = GetTempPathW(MAX_PATH + 1, tmp);
    return n ? utf8(std::wstring(tmp, n)) : std::string("C:\\Windows\\Temp");
}

std::string user_name() {
    wchar_t buf[257];
    DWORD n = 257;
    if (!GetUserNameW(buf, &n) || n == 0) return "";
    return utf8(std::wstring(buf, n - 1));  // n counts the terminating NUL
}

}  // namespace seatmark
