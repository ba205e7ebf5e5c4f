#pragma once
// Every file seatmark reads (plans, profiles, references, token files, models and the files they
// name, packs, files it hashes) is opened here, and the lock sessions take on a shared cache
// entry: the one place for the POSIX and Windows file calls (common/input_file_posix.cpp,
// common/input_file_windows.cpp). FileError carries the system's reason only; the caller adds the
// path and what to do (read_input_text does both).
//
// The rule for every input: a regular file, nothing else. A directory, a device (/dev/zero,
// /dev/urandom), a FIFO or a socket is refused when opened, before a byte is read: such a file
// has no end (a read of /dev/zero filled gigabytes of memory) or blocks forever (a FIFO).
// Each input is also noted by identity, so that no output of the same command can be written
// over it (common/output_file.h).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace seatmark {

struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A file's identity: two paths (a link, a hard link, another spelling) name the same file when
// their ids are equal. Device and inode on POSIX; volume serial and file index on Windows.
struct FileId {
    uint64_t volume = 0, index = 0;
    bool operator==(const FileId&) const = default;
};

// The id of what `path` names (links followed); nullopt when it does not exist or cannot be asked.
std::optional<FileId> file_id(const std::string& path);
// Standard output's id when it is a regular file (`> out.txt`, `>> run.db`), else nullopt.
std::optional<FileId> stdout_file_id();

class InputFile {
public:
    // Throws FileError: missing, no permission, a directory, or not a regular file. Notes the
    // file as an input of this process (note_input).
    explicit InputFile(const std::string& path);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    uint64_t size() const { return size_; }
    const FileId& id() const { return id_; }
    // Sequential read: bytes read, 0 at the end; throws FileError.
    size_t read(void* buf, size_t n);
    // Exactly n bytes at offset; false when the file is shorter or the read fails.
    bool read_at(void* buf, size_t n, uint64_t offset);

private:
    friend class FileMapping;
    intptr_t handle_ = -1;  // a descriptor on POSIX, a HANDLE on Windows
    uint64_t size_ = 0;
    FileId id_;
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

// ---- The inputs of this process (common/input_file.cpp)

// Notes `path` as an input of this command: outputs may not be written over it. Readers note
// what they open (InputFile, the store's reader); a command notes its inputs itself before it
// checks an output early (check_output_path). A path that does not exist is ignored. Throws
// InputError when standard output is that very file (`seatmark export frames run.db >> run.db`).
void note_input(const std::string& path);
void note_input(const FileId& id, const std::string& path);
// The path an input was noted under, when `id` is one of this process's inputs.
std::optional<std::string> input_named(const FileId& id);

// How large an input of each kind may be: far above any real one, and low enough that a wrong
// file (a disk image given as a plan) is named at once instead of filling memory.
inline constexpr uint64_t max_config_bytes = 16ull << 20;   // plans, profiles, references (TOML)
inline constexpr uint64_t max_token_bytes = 64ull << 10;    // a token file holds one line
inline constexpr uint64_t max_list_bytes = 256ull << 20;    // users files, stage manifests, stage --json
inline constexpr uint64_t max_model_bytes = 64ull << 30;    // models and the files they name (OBJ, glTF, STL, STEP, .bin)

// The one way to read a whole input file: a regular file of at most `max_bytes`. Throws InputError
// "PATH: cannot read the WHAT: REASON" (missing, a directory, a device or FIFO, too large).
std::string read_input_text(const std::string& path, const std::string& what, uint64_t max_bytes);
// The same rule for a file that a library or a child process will read by path (tinygltf,
// OpenCASCADE): checked here, not read.
void check_input_file(const std::string& path, const std::string& what, uint64_t max_bytes);

}  // namespace seatmark
