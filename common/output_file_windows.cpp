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
HANDLE h(intptr_t v) { return reinterpret_cast<HANDLE>(v); }
}  // namespace

namespace output_detail {

TargetKind target_kind(const std::string& path, std::string& resolved) {
    resolved = path;
    const DWORD attrs = GetFileAttributesW(wide(path).c_str());
    if (attrs == INVALID_FILE_ATTRIBUTES) return TargetKind::absent;
    if (attrs & FILE_ATTRIBUTE_DIRECTORY) return TargetKind::directory;
    HANDLE f = CreateFileW(wide(path).c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                           OPEN_EXISTING, 0, nullptr);
    if (f == INVALID_HANDLE_VALUE) return (attrs & FILE_ATTRIBUTE_REPARSE_POINT) ? TargetKind::dangling_link : TargetKind::regular;
    const bool disk = GetFileType(f) == FILE_TYPE_DISK;
    CloseHandle(f);
    return disk ? TargetKind::regular : TargetKind::other;
}

void check_folder_writable(const std::string& path, const std::string& option) {
    const std::filesystem::path p(wide(path));
    std::error_code ec;
    std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(L".");
    if (!std::filesystem::exists(dir, ec))
        throw InputError(option + " " + path + ": folder " + utf8(dir.wstring()) + " does not exist; create it first");
    if (!std::filesystem::is_directory(dir, ec))
        throw InputError(option + " " + path + ": " + utf8(dir.wstring()) + " is not a folder");
    // Windows has no access(W_OK) that tells the truth about ACLs: try to create a file there.
    std::filesystem::path probe = dir / (L".seatmark-probe-" + std::to_wstring(current_pid()));
    HANDLE f = CreateFileW(probe.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                           FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, nullptr);
    if (f == INVALID_HANDLE_VALUE)
        throw InputError(option + " " + path + ": folder " + utf8(dir.wstring()) + " is not writable (" +
                         win_error_text(GetLastError()) + ")");
    CloseHandle(f);
}

}  // namespace output_detail

// As on POSIX: a temporary file beside the target, written whole, then moved over it
// (MoveFileEx replaces an existing file, which rename() on Windows refuses to).
OutputFile::OutputFile(const std::string& path, const std::string& what) : path_(path), what_(what), target_(path) {
    check_output_target(path, what);
    const std::filesystem::path target(wide(path));
    for (int n = 0; handle_ == -1; ++n) {
        std::filesystem::path tmp = target;
        tmp.replace_filename(L"." + target.filename().wstring() + L".tmp-" + std::to_wstring(current_pid()) +
                             (n ? L"-" + std::to_wstring(n) : std::wstring()));
        HANDLE f = CreateFileW(tmp.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr);
        if (f != INVALID_HANDLE_VALUE) {
            handle_ = reinterpret_cast<intptr_t>(f);
            tmp_ = utf8(tmp.wstring());
        } else if (GetLastError() != ERROR_FILE_EXISTS || n >= 100) {
            fail(win_error_text(GetLastError()));
        }
    }
}

OutputFile::~OutputFile() {
    if (handle_ != -1) CloseHandle(h(handle_));
    if (!committed_ && !tmp_.empty()) DeleteFileW(wide(tmp_).c_str());
}

void OutputFile::fail(const std::string& reason) {
    throw ExitError(exit_code::output_error, (what_.empty() ? path_ : what_ + " " + path_) + ": cannot write: " + reason +
                                                 "; give a path in a writable folder with free space");
}

void OutputFile::write(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    for (size_t done = 0; done < n;) {
        DWORD w = 0;
        const DWORD want = DWORD(std::min<size_t>(n - done, 1u << 30));
        if (!WriteFile(h(handle_), p + done, want, &w, nullptr) || w == 0) fail(win_error_text(GetLastError()));
        done += w;
    }
}

void OutputFile::write_at(const void* data, size_t n, uint64_t offset) {
    LARGE_INTEGER at{}, back{}, here{};
    if (!SetFilePointerEx(h(handle_), here, &back, FILE_CURRENT)) fail(win_error_text(GetLastError()));
    at.QuadPart = LONGLONG(offset);
    if (!SetFilePointerEx(h(handle_), at, nullptr, FILE_BEGIN)) fail(win_error_text(GetLastError()));
    write(data, n);
    if (!SetFilePointerEx(h(handle_), back, nullptr, FILE_BEGIN)) fail(win_error_text(GetLastError()));
}

void OutputFile::commit() {
    HANDLE f = h(handle_);
    handle_ = -1;
    if (!CloseHandle(f)) fail(win_error_text(GetLastError()));
    if (!MoveFileExW(wide(tmp_).c_str(), wide(target_).c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        fail(win_error_text(GetLastError()));
    committed_ = true;
}

}  // namespace seatmark
