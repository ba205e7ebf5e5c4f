#pragma once
// Whether the process writing a run database is still alive. The writer creates the file and
// holds an exclusive flock(2) on it for as long as it writes; the kernel drops the lock when
// that process ends in any way, kill -9 included. A reader that can take a shared lock knows
// the writer is gone. flock locks are independent of the fcntl locks SQLite uses.
//
// Caveat (SQLite's, for any fd on the file): closing a descriptor of the database file drops
// the fcntl locks SQLite holds on it in this process, so each handle here is closed only after
// the SQLite connections that it sits beside.
#include <string>

namespace seatmark::store {

class FileHandle {
public:
    FileHandle() = default;
    explicit FileHandle(int fd) : fd_(fd) {}
    ~FileHandle();
    FileHandle(FileHandle&& o) noexcept;
    FileHandle& operator=(FileHandle&& o) noexcept;
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;
    int fd() const { return fd_; }
    void close();

private:
    int fd_ = -1;
};

// The one rule for a run database named by --db (run, demo, a pool's merged file): it is never
// written over. Throws InputError "run.db exists; choose another --db or remove it" + `why`
// when `path` exists (`why`, e.g. " (rank 0 merges ...)", says what would have written it).
// Commands call it before they start anything; create_locked holds to it at creation.
void refuse_existing_db(const std::string& path, const std::string& why = {});

// Creates `path`, which must not exist, and takes the writer lock on it. Throws InputError:
//   "run.db exists; choose another --db or remove it"
//   "dir/run.db: cannot create: No such file or directory"
FileHandle create_locked(const std::string& path);

// Opens an existing file for probing with writer_alive(). Throws InputError naming the file.
FileHandle open_for_probe(const std::string& path);

// True while a writer holds the lock on the file behind `probe`.
bool writer_alive(const FileHandle& probe);

}  // namespace seatmark::store
