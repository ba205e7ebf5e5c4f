#include <windows.h>

#include <algorithm>

#include "common/input_file.h"
#include "common/win_text.h"

namespace seatmark {

namespace {
[[noreturn]] void fail(DWORD err) { throw FileError(win_error_text(err)); }
HANDLE h(intptr_t v) { return reinterpret_cast<HANDLE>(v); }
}  // namespace

namespace {
std::optional<FileId> id_of(HANDLE f) {
    BY_HANDLE_FILE_INFORMATION info{};
    if (!GetFileInformationByHandle(f, &info)) return std::nullopt;
    return FileId{info.dwVolumeSerialNumber, (uint64_t(info.nFileIndexHigh) << 32) | info.nFileIndexLow};
}
}  // namespace

std::optional<FileId> file_id(const std::string& path) {
    // No access asked for, only attributes; FILE_FLAG_BACKUP_SEMANTICS opens directories too.
    HANDLE f = CreateFileW(wide(path).c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (f == INVALID_HANDLE_VALUE) return std::nullopt;
    auto id = id_of(f);
    CloseHandle(f);
    return id;
}

std::optional<FileId> stdout_file_id() {
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    if (out == nullptr || out == INVALID_HANDLE_VALUE || GetFileType(out) != FILE_TYPE_DISK) return std::nullopt;
    return id_of(out);
}

InputFile::InputFile(const std::string& path) {
    const DWORD attrs = GetFileAttributesW(wide(path).c_str());
    if (attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY)) throw FileError("it is a directory");
    // FILE_SHARE_DELETE too: a pack being replaced by another session must not fail this open.
    HANDLE f = CreateFileW(wide(path).c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_SEQUENTIAL_SCAN, nullptr);
    if (f == INVALID_HANDLE_VALUE) fail(GetLastError());
    if (GetFileType(f) != FILE_TYPE_DISK) {
        CloseHandle(f);  // a constructor that throws runs no destructor
        throw FileError("it is not a regular file but a device or pipe, which has no end or waits for a writer");
    }
    LARGE_INTEGER sz{};
    if (GetFileSizeEx(f, &sz)) size_ = uint64_t(sz.QuadPart);
    if (auto id = id_of(f)) id_ = *id;
    try {
        note_input(id_, path);
    } catch (...) {
        CloseHandle(f);
        throw;
    }
    handle_ = reinterpret_cast<intptr_t>(f);
}

InputFile::~InputFile() {
    if (handle_ != -1) CloseHandle(h(handle_));
}

size_t InputFile::read(void* buf, size_t n) {
    DWORD got = 0;
    const DWORD want = DWORD(n > (1u << 30) ? (1u << 30) : n);
    if (!ReadFile(h(handle_), buf, want, &got, nullptr)) fail(GetLastError());
    return got;
}

bool InputFile::read_at(void* buf, size_t n, uint64_t offset) {
    OVERLAPPED ov{};
    ov.Offset = DWORD(offset & 0xffffffffu);
    ov.OffsetHigh = DWORD(offset >> 32);
    DWORD got = 0;
    return ReadFile(h(handle_), buf, DWORD(n), &got, &ov) && got == n;
}

FileMapping::FileMapping(const InputFile& file, uint64_t size) : size_(size) {
    HANDLE s = CreateFileMappingW(h(file.handle_), nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (!s) fail(GetLastError());
    void* m = MapViewOfFile(s, FILE_MAP_READ, 0, 0, size_t(size));
    if (!m) {
        const DWORD err = GetLastError();
        CloseHandle(s);
        fail(err);
    }
    // Read ahead as MAP_POPULATE does on Linux: the session uploads the sections right away.
    WIN32_MEMORY_RANGE_ENTRY range{m, size_t(size)};
    PrefetchVirtualMemory(GetCurrentProcess(), 1, &range, 0);
    section_ = reinterpret_cast<intptr_t>(s);
    data_ = static_cast<const uint8_t*>(m);
}

void FileMapping::page_in(const void* p, uint64_t n) const {
    if (!data_ || p < data_ || static_cast<const uint8_t*>(p) >= data_ + size_) return;
    WIN32_MEMORY_RANGE_ENTRY range{const_cast<void*>(p), size_t(std::min<uint64_t>(n, size_ - uint64_t(static_cast<const uint8_t*>(p) - data_)))};
    PrefetchVirtualMemory(GetCurrentProcess(), 1, &range, 0);
}

void FileMapping::page_out(const void* p, uint64_t n) const {
    if (!data_ || p < data_ || static_cast<const uint8_t*>(p) >= data_ + size_) return;
    // VirtualUnlock on pages that are not locked takes them out of the working set (documented);
    // it then fails with ERROR_NOT_LOCKED, which is the expected answer here.
    VirtualUnlock(const_cast<void*>(p), size_t(std::min<uint64_t>(n, size_ - uint64_t(static_cast<const uint8_t*>(p) - data_))));
}

FileMapping::~FileMapping() {
    if (data_) UnmapViewOfFile(data_);
    if (section_) CloseHandle(h(section_));
}

FileLock::FileLock(const std::string& path) {
    HANDLE f = CreateFileW(wide(path).c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                           OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (f == INVALID_HANDLE_VALUE) fail(GetLastError());
    OVERLAPPED ov{};
    if (!LockFileEx(f, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ov)) {
        const DWORD err = GetLastError();
        CloseHandle(f);
        fail(err);
    }
    handle_ = reinterpret_cast<intptr_t>(f);
}

FileLock::~FileLock() {
    if (handle_ != -1) CloseHandle(h(handle_));  // closing the handle releases the lock
}

bool file_readable(const std::string& path, std::string* reason) {
    try {
        InputFile f(path);
        return true;
    } catch (const FileError& e) {
        if (reason) *reason = e.what();
        return false;
    }
}

}  // namespace seatmark
