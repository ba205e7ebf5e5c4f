#pragma once
// Runs a real child process for integration tests: argv (no shell), captured
// stdout/stderr, exit code or signal, and a wall-clock limit after which it is killed.
#include <functional>
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

// A child process that runs while the test acts on it (signals, polling its
// database). Output goes to files; wait() collects it. The destructor kills a
// child still running, so a failed test leaves no process behind.
class BackgroundProcess {
public:
    BackgroundProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});
    ~BackgroundProcess();
    BackgroundProcess(const BackgroundProcess&) = delete;
    BackgroundProcess& operator=(const BackgroundProcess&) = delete;
    int pid() const { return pid_; }
    void signal(int sig);
    bool running();
    ProcessResult wait(double timeout_s = 120);
    // What it has written to stderr so far (tests wait on a message instead of a fixed time).
    std::string err_so_far() const;

private:
    int pid_ = -1;
    bool reaped_ = false;
    std::string out_path_, err_path_;
};

// Polls `cond` every 100 ms until it holds or timeout_s passes; returns whether it held.
bool wait_until(double timeout_s, const std::function<bool()>& cond);

// True once process `pid` runs the image named `exe` and catches SIGTERM (bit 15 of /proc/PID/status's
// SigCgt): its main() has installed the stop handler. Libraries are mapped at exec, before main(), and
// a sanitizer's start-up makes that gap hundreds of ms, so a map or a fixed delay does not say a
// SIGTERM will be handled rather than kill the process by its default action.
bool handles_sigterm(int pid, const std::string& exe);

// kill(pid, sig) for a process a test looked up (in a database, /proc, a file name). Throws, failing
// the test, for pid <= 1: kill() reads -1 as "every process I may signal" (as root: the whole
// machine, ctest included) and 0 as "my process group". Returns kill()'s result.
int signal_process(int64_t pid, int sig);

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
