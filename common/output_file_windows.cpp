#include <windows.h>

#include <filesystem>
#include <system_error>

#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"
#include "common/self_exe.h"
#include "common/win_text.h"

namespace seatmark {

namespace {

[[noreturn]] void cannot_write(const std::string& what, const std::string& reason) {
    throw ExitError(exit_code::output_error,
                    what + ": cannot write: " + reason + "; give a path in a writable folder with free space");
}

}  // namespace

// As on POSIX: a temporary file beside the target, written whole, then moved over it
// (MoveFileEx replaces an existing file, which rename() on Windows refuses to).
void write_output_file(const std::string& path, std::string_view text) {
    if (path.empty()) throw ExitError(exit_code::bad_input, "an output path is empty; give a file name");
    const std::filesystem::path target(wide(path));
    std::error_code ec;
    if (std::filesystem::is_directory(target, ec)) cannot_write(path, "is a directory");
    std::filesystem::path tmp = target;
    tmp.replace_filename(L"." + target.filename().wstring() + L".tmp-" + std::to_wstring(current_pid()));
    HANDLE h = CreateFileW(tmp.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) cannot_write(path, win_error_text(GetLastError()));
    for (size_t done = 0; done < text.size();) {
        DWORD n = 0;
        const DWORD want = DWORD(std::min<size_t>(text.size() - done, 1u << 30));
        if (!WriteFile(h, text.data() + done, want, &n, nullptr) || n == 0) {
            const DWORD err = GetLastError();
            CloseHandle(h);
            DeleteFileW(tmp.c_str());
            cannot_write(path, win_error_text(err));
        }
        done += n;
    }
    if (!CloseHandle(h) || !MoveFileExW(tmp.c_str(), target.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
        const DWORD err = GetLastError();
        DeleteFileW(tmp.c_str());
        cannot_write(path, win_error_text(err));
    }
}

void check_output_path(const std::string& path, const std::string& option) {
    if (path.empty()) throw InputError(option + " is empty; give a file name");
    const std::filesystem::path p(wide(path));
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) throw InputError(option + " " + path + ": is a directory; give a file name");
    std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(L".");
    if (!std::filesystem::exists(dir, ec))
        throw InputError(option + " " + path + ": folder " + utf8(dir.wstring()) + " does not exist; create it first");
    if (!std::filesystem::is_directory(dir, ec))
        throw InputError(option + " " + path + ": " + utf8(dir.wstring()) + " is not a folder");
    // Windows has no access(W_OK) that tells the truth about ACLs: try to create a file there.
    std::filesystem::path probe = dir / (L".seatmark-probe-" + std::to_wstring(current_pid()));
    HANDLE h = CreateFileW(probe.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                           FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, nullptr);
    if (h == INVALID_HANDLE_VALUE)
        throw InputError(option + " " + path + ": folder " + utf8(dir.wstring()) + " is not writable (" +
                         win_error_text(GetLastError()) + ")");
    CloseHandle(h);
}

}  // namespace seatmark
