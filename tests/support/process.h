#pragma once
// Runs a real child process for integration tests: argv (no shell), captured
// stdout/stderr, exit code or signal, and a wall-clock limit after which it is killed.
#include <string>
#include <vector>

namespace seatmark::test {

struct ProcessResult {
    int exit_code = -1;   // -1 when killed by a signal
    int signal = 0;
    bool timed_out = false;
    std::string out, err;
};

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 120,
                          const std::vector<std::string>& extra_env = {});

// argv for the built seatmark binary followed by args.
std::vector<std::string> seatmark_argv(std::vector<std::string> args);

// A fresh empty directory under /tmp, removed by the destructor.
struct TempDir {
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string path;
    std::string file(const std::string& name) const { return path + "/" + name; }
};

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

}  // namespace seatmark::test
