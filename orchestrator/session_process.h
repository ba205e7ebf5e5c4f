#pragma once
// One `seatmark session` child process, started with Boost.Process (no shell)
// in its own process group, so a hang or Ctrl-C can stop it and anything it
// started as a whole. Its stdout and stderr go to a log file beside the run (to /dev/null,
// said by log_problem(), when the log cannot be created).
#include <utility>  // before Asio (GCC 12 + Boost coroutine headers)

#include <boost/asio/io_context.hpp>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace seatmark::orchestrator {

struct ExitStatus {
    int exit_code = -1;  // when it exited
    int signal = 0;      // when a signal ended it
    bool exited() const { return signal == 0 && exit_code >= 0; }
};

class SessionProcess {
public:
    // Throws std::runtime_error when the process cannot be started.
    SessionProcess(boost::asio::io_context& io, const std::string& exe, const std::vector<std::string>& args,
                   const std::string& log_path);
    ~SessionProcess();
    SessionProcess(const SessionProcess&) = delete;
    SessionProcess& operator=(const SessionProcess&) = delete;

    pid_t pid() const;
    // Why its output goes nowhere ("cannot create session log PATH: ..."), "" when it has its log.
    const std::string& log_problem() const { return log_problem_; }
    bool running() const { return running_; }
    // Signals the whole process group (SIGTERM asks to finish, SIGKILL ends it).
    void signal_group(int sig);
    // Called once, on the io_context, when the process has ended.
    void on_exit(std::function<void(ExitStatus)> cb);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    bool running_ = true;
    std::string log_problem_;
};

std::string describe(const ExitStatus& s);  // "exit code 3", "signal 9 (Killed)"

}  // namespace seatmark::orchestrator
