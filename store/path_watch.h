#pragma once
// Whether a database's path still names the file its writer has open. A run's folder removed
// (or its file deleted, or replaced by another) while the run writes leaves SQLite writing to a
// file that no name reaches: every frame is lost the moment the writer closes it, and the run
// used to end saying "finished ... database DIR/run.db" about a path that no longer existed.
// StoreWriter asks once per commit interval (one stat) and, once the path is lost, keeps what
// the file holds under a new name (reserve_rescue_file) when it finishes.
#include <string>
#include <sys/types.h>

namespace seatmark::store {

class PathWatch {
public:
    PathWatch() = default;
    // `fd`: an open descriptor of the file `path` names now (its device and inode are kept).
    PathWatch(std::string path, int fd);

    // "" while `path` names the same file; else what became of it, naming the path and the
    // folder ("DIR/run.db is gone: its folder DIR was removed").
    std::string check() const;

private:
    std::string path_;
    dev_t dev_ = 0;
    ino_t ino_ = 0;
    bool armed_ = false;
};

// Creates a new, empty file to keep a copy of the database `db_path` in, never over an existing
// one (O_EXCL): STEM.rescued-PID.db (then -2, -3, ...) in the database's folder if it still
// exists, else in the working folder, else in $TMPDIR (or /tmp). Returns its path, or "" with
// each place tried and why in `tried`.
std::string reserve_rescue_file(const std::string& db_path, std::string& tried);

}  // namespace seatmark::store
