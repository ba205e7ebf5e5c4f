#include "orchestrator/session_process.h"

#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace bp = boost::process::v2;

namespace seatmark::orchestrator {

namespace {

// Runs in the child between fork and exec: a process group of its own, so the
// orchestrator can signal the session and everything it started at once, and
// a terminal's Ctrl-C reaches only the orchestrator, which then stops sessions in order.
//
// And nothing of the orchestrator's crosses exec but stdin/out/err: every descriptor from
// 3 up is marked close-on-exec here, in the child's own copy of the table, so no thread of
// the orchestrator can race it. Every descriptor seatmark opens is close-on-exec already;
// this also covers those a library opens without the flag (Asio's sockets), and Boost 1.81's
// own close-all, which skips every descriptor below its error pipe (an off-by-one in
// posix/detail/close_handles.ipp): that is how sessions inherited the live API's
// listening socket, the telemetry socket and the event loop's epoll, eventfd and timerfd.
struct OwnProcessGroupNoInheritance {
    template <typename Launcher>
    bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*&) {
        if (::setpgid(0, 0) != 0) return bp::error_code(errno, bp::system_category());
        if (::close_range(3, ~0u, CLOSE_RANGE_CLOEXEC) != 0) {
            // Kernels before 5.11: one fcntl per possible descriptor (async-signal-safe, unlike
            // listing /proc/self/fd after fork).
            const long max = ::sysconf(_SC_OPEN_MAX);
            for (int fd = 3; fd < (max > 0 ? max : 1024); ++fd) {
                int flags = ::fcntl(fd, F_GETFD);
                if (flags >= 0 && !(flags & FD_CLOEXEC)) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
            }
        }
        return {};
    }
};

}  // namespace

struct SessionProcess::Impl {
    Impl(boost::asio::io_context& io, const std::string& exe, const std::vector<std::string>& args, int in, FILE* log)
        : proc(io.get_executor(), exe, args, bp::process_stdio{in, log, log}, OwnProcessGroupNoInheritance{}) {}
    bp::process proc;
    pid_t pid = 0;
};

SessionProcess::SessionProcess(boost::asio::io_context& io, const std::string& exe,
                               const std::vector<std::string>& args, const std::string& log_path) {
    FILE* log = std::fopen(log_path.c_str(), "we");  // e: O_CLOEXEC (the child gets it as stdout/stderr)
    if (!log) {
        // A log is the session's diagnostics, not its measurement: without one it still runs
        // (output to /dev/null) and the caller records why. Failing here failed the session, and
        // with it the step, as if it had crashed (the run's folder removed mid-run, a full disk).
        log_problem_ = "cannot create session log " + log_path + ": " + std::strerror(errno);
        log = std::fopen("/dev/null", "we");
        if (!log) throw std::runtime_error(log_problem_ + "; cannot open /dev/null either: " + std::strerror(errno));
    }
    // stdin is /dev/null, opened here close-on-exec (Boost's own `nullptr` binding opens it without).
    int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        std::fclose(log);
        throw std::runtime_error(std::string("cannot open /dev/null: ") + std::strerror(errno));
    }
    try {
        impl_ = std::make_unique<Impl>(io, exe, args, in, log);
    } catch (const std::exception& e) {
        std::fclose(log);
        ::close(in);
        throw std::runtime_error("cannot start " + exe + ": " + e.what());
    }
    std::fclose(log);  // the child holds its own descriptors
    ::close(in);
    impl_->pid = impl_->proc.id();
}

SessionProcess::~SessionProcess() {
    if (running_ && impl_) {
        ::kill(-impl_->pid, SIGKILL);
        bp::error_code ec;
        impl_->proc.wait(ec);  // reap: no zombie outlives its session
    }
}

pid_t SessionProcess::pid() const { return impl_->pid; }

void SessionProcess::signal_group(int sig) {
    if (running_) ::kill(-impl_->pid, sig);
}

void SessionProcess::on_exit(std::function<void(ExitStatus)> cb) {
    impl_->proc.async_wait([this, cb = std::move(cb)](bp::error_code, int) {
        running_ = false;
        int raw = impl_->proc.native_exit_code();
        ExitStatus s;
        if (WIFEXITED(raw)) s.exit_code = WEXITSTATUS(raw);
        if (WIFSIGNALED(raw)) s.signal = WTERMSIG(raw);
        cb(s);
    });
}

std::string describe(const ExitStatus& s) {
    if (s.signal) return "signal " + std::to_string(s.signal) + " (" + strsignal(s.signal) + ")";
    return "exit code " + std::to_string(s.exit_code);
}

}  // namespace seatmark::orchestrator
