#pragma once
// Files read whole or mapped (hashing, packs) and the lock sessions take on a shared cache
// entry: the one place for the POSIX and Windows file calls (common/input_file_posix.cpp,
// common/input_file_windows.cpp). Errors are FileError with the system's reason only; the
// caller adds the path and what to do.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace seatmark {

struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class InputFile {
public:
    explicit InputFile(const std::string& path);  // throws FileError (missing, no permission, ...)
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    bool regular() const { return regular_; }
    uint64_t size() const { return size_; }
    // Sequential read: bytes read, 0 at the end; throws FileError.
    size_t read(void* buf, size_t n);
    // Exactly n bytes at offset; false when the file is shorter or the read fails.
    bool read_at(void* buf, size_t n, uint64_t offset);

private:
    friend class FileMapping;
    intptr_t handle_ = -1;  // a descriptor on POSIX, a HANDLE on Windows
    bool regular_ = false;
    uint64_t size_ = 0;
};

// A read-only private mapping of a whole file, read ahead sequentially. Pages come in as they are
// read, not all at once: a session checks and uploads a 1 GB pack block by block, paging each
// block in and handing it back once used, so its resident memory stays a few blocks, not the file
// (the pages stay in the page cache that every session on the host shares).
class FileMapping {
public:
    FileMapping(const InputFile& file, uint64_t size);  // throws FileError
    ~FileMapping();
    FileMapping(const FileMapping&) = delete;
    FileMapping& operator=(const FileMapping&) = delete;
    const uint8_t* data() const { return data_; }
    uint64_t size() const { return size_; }
    // Page [p, p + n) in now, in one call rather than a fault per page (best effort).
    void page_in(const void* p, uint64_t n) const;
    // Hand the pages of [p, p + n) back: a later read pages them in again (best effort).
    void page_out(const void* p, uint64_t n) const;

private:
    const uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
    intptr_t section_ = 0;  // Windows' file-mapping object
};

// An exclusive lock on PATH (created when missing), held until destroyed: one of many sessions
// starting on the same new model packs it, the others wait here.
class FileLock {
public:
    explicit FileLock(const std::string& path);  // blocks until held; throws FileError
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    intptr_t handle_ = -1;
};

bool file_readable(const std::string& path, std::string* reason = nullptr);

}  // namespace seatmark
