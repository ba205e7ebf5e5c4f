#include "tests/support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace seatmark::test {

namespace {
std::vector<std::string> merged_env(const std::vector<std::string>& extra_env) {
    std::vector<std::string> env_store;
    for (char** e = environ; *e; ++e) {
        std::string entry(*e);
        std::string key = entry.substr(0, entry.find('=') + 1);
        bool replaced = false;
        for (auto& x : extra_env) replaced |= x.rfind(key, 0) == 0;
        if (!replaced) env_store.push_back(entry);
    }
    for (auto& e : extra_env) env_store.push_back(e);
    return env_store;
}
}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s,
                          const std::vector<std::string>& extra_env) {
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);

    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // extra_env entries ("KEY=VALUE") replace inherited ones of the same key.
    std::vector<std::string> env_store = merged_env(extra_env);
    std::vector<char*> env;
    for (auto& e : env_store) env.push_back(e.data());
    env.push_back(nullptr);

    pid_t pid = 0;
    int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&fa);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (rc != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
    }

    ProcessResult r;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            r.timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        if (poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) < 0) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            } else {
                (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) close(f.fd);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    return r;
}


BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
    char tmpl[] = "/tmp/seatmark-bg-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    out_path_ = std::string(tmpl) + "/out";
    err_path_ = std::string(tmpl) + "/err";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    auto env_store = merged_env(extra_env);
    std::vector<char*> env;
    for (auto& e : env_store) env.push_back(e.data());
    env.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
    pid_ = pid;
}

BackgroundProcess::~BackgroundProcess() {
    if (!reaped_) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(out_path_).parent_path(), ec);
}

void BackgroundProcess::signal(int sig) {
    if (!reaped_) kill(pid_, sig);
}

bool BackgroundProcess::running() {
    if (reaped_) return false;
    siginfo_t info{};
    // WNOWAIT: look without reaping, so wait() still gets the status.
    waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    return info.si_pid == 0;
}

ProcessResult BackgroundProcess::wait(double timeout_s) {
    ProcessResult r;
    if (!reaped_) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        int status = 0;
        for (;;) {
            pid_t p = waitpid(pid_, &status, WNOHANG);
            if (p == pid_) break;
            if (std::chrono::steady_clock::now() > deadline) {
                r.timed_out = true;
                kill(pid_, SIGKILL);
                waitpid(pid_, &status, 0);
                break;
            }
            usleep(50000);
        }
        reaped_ = true;
        if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    }
    r.out = read_file(out_path_);
    r.err = read_file(err_path_);
    return r;
}

std::string BackgroundProcess::err_so_far() const { return read_file(err_path_); }

int signal_process(int64_t pid, int sig) {
    if (pid <= 1)
        throw std::logic_error("no process to signal (pid " + std::to_string(pid) + "): kill(" + std::to_string(pid) +
                               ") would signal " + (pid == 0 ? "this test's process group" : "every process on the machine"));
    return ::kill(pid_t(pid), sig);
}

bool handles_sigterm(int pid, const std::string& exe) {
    std::error_code ec;
    auto image = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
    if (ec || image.filename() != exe) return false;
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("SigCgt:", 0) == 0)
            return (std::stoull(line.substr(7), nullptr, 16) & (1ull << (SIGTERM - 1))) != 0;
    return false;
}

bool wait_until(double timeout_s, const std::function<bool()>& cond) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
        if (cond()) return true;
        usleep(100000);
    }
    return cond();
}

std::vector<std::string> seatmark_argv(std::vector<std::string> args) {
    args.insert(args.begin(), SEATMARK_BIN);
    return args;
}

TempDir::TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "seatmark-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot read " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace seatmark::test
