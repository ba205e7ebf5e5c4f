#pragma once
// Every file a command writes for the user (reports, --json, --junit, packs, CSV, PNG, reference
// frames, a demo's plan) goes through here, and standard output is checked once in main(): an
// output that could not be written is an error with its own exit code (exit_code::output_error),
// never a silent exit 0.
//
// The rule for every output, in one place (check_output_target): the path is new or a regular
// file (a link to one is followed), and it is none of the command's own inputs
// (common/input_file.h, note_input). `check --junit RUN.db` used to write XML over the run's
// database, `pack a.obj --out a.obj` over the model, and `--out /dev/...` replaced a device node.
// Writers that cannot go through OutputFile (SQLite databases, session logs) call the rule
// themselves before they create or remove anything.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seatmark {

// Throws InputError "WHAT PATH: REASON; ..." when PATH may not be written: a directory, a device,
// FIFO or socket, a dangling link, or one of this process's inputs. `what` names the option
// ("--junit") or the file's role ("the report"); empty: the path alone.
void check_output_target(const std::string& path, const std::string& what = {});

// A file written whole or not at all: a temporary file beside the target, renamed over it by
// commit(). Destroyed without commit() (an exception on the way), it removes the temporary file
// and leaves the target as it was. Write errors (a full disk, a read-only file system) throw
// ExitError(exit_code::output_error) naming the path.
class OutputFile {
public:
    // check_output_target, then the temporary file.
    explicit OutputFile(const std::string& path, const std::string& what = {});
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(const void* data, size_t n);
    void write(std::string_view text) { write(text.data(), text.size()); }
    // Overwrites bytes already written (a header filled in at the end).
    void write_at(const void* data, size_t n, uint64_t offset);
    void commit();
    const std::string& path() const { return path_; }

private:
    [[noreturn]] void fail(const std::string& reason);
    std::string path_, what_;
    std::string target_;  // what the rename replaces: path_, or the file a link at path_ names
    std::string tmp_;
    intptr_t handle_ = -1;  // a descriptor on POSIX, a HANDLE on Windows
    bool committed_ = false;
};

// An OutputFile with `text`, committed.
void write_output_file(const std::string& path, std::string_view text, const std::string& what = {});

// Before long work: notes `inputs` (note_input), then throws InputError when `path` cannot be
// written later: empty, refused by check_output_target, its folder missing, not a folder or not
// writable. A run fails in its first second, not after it.
void check_output_path(const std::string& path, const std::string& option, const std::vector<std::string>& inputs = {});

// Flushes stdout; throws the same ExitError naming "standard output" when it failed at any
// point (e.g. `> /dev/full`).
void check_stdout();

// ---- Platform calls (common/output_file_posix.cpp, common/output_file_windows.cpp)
namespace output_detail {
enum class TargetKind { absent, regular, directory, other, dangling_link };
// What `path` names now; for a link to a regular file, `resolved` is that file's path.
TargetKind target_kind(const std::string& path, std::string& resolved);
// The folder check of check_output_path; throws InputError.
void check_folder_writable(const std::string& path, const std::string& option);
}  // namespace output_detail

}  // namespace seatmark
