#pragma once
// The real RDP host for launcher tests: scripts/rdp_host.sh (xrdp-sesman + xrdp on 127.0.0.1,
// own certificate, test users with a ~/.xsession). The constructor first tears down whatever a
// killed earlier run left in the same state folder; the destructor tears everything down
// (every session, Xorg and helper process, the users and their homes), also when a check failed.
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace seatmark::test {

// A file's text, or "" when it is not there (a process that ended, a CSV not yet written).
inline std::string read_if_there(const std::string& path) {
    try {
        return read_file(path);
    } catch (const std::exception&) {
        return {};
    }
}

struct RdpUser {
    std::string name, password;
};

class RdpHost {
public:
    static constexpr int port = 33890;
    static bool can_run() { return ::geteuid() == 0; }

    RdpHost(int users, const std::string& xsession_text) {
        stop();
        write_file(xsession_path_, xsession_text);
        const auto r = run_process({script_, "start", state_, "--users", std::to_string(users), "--port",
                                    std::to_string(port), "--xsession", xsession_path_},
                                   60);
        if (r.exit_code != 0) throw std::runtime_error("rdp_host.sh start failed: " + r.out + r.err);
        std::istringstream in(read_file(state_ + "/users"));
        for (std::string line; std::getline(in, line);)
            if (auto c = line.find(':'); c != std::string::npos) users_.push_back({line.substr(0, c), line.substr(c + 1)});
    }
    ~RdpHost() { stop(); }
    RdpHost(const RdpHost&) = delete;
    RdpHost& operator=(const RdpHost&) = delete;

    const std::vector<RdpUser>& users() const { return users_; }
    std::string users_file() const { return state_ + "/users"; }
    std::string home(const RdpUser& u) const { return "/home/" + u.name; }

    // Pids of the processes user u runs now (its desktop: Xorg, chansrv, the session...), from /proc.
    static std::vector<int> processes_of(const std::string& user) {
        std::vector<int> out;
        const passwd* pw = ::getpwnam(user.c_str());
        if (!pw) return out;
        for (const auto& e : std::filesystem::directory_iterator("/proc")) {
            const std::string name = e.path().filename();
            if (name.find_first_not_of("0123456789") != std::string::npos) continue;
            std::istringstream st(read_if_there(e.path().string() + "/status"));
            for (std::string line; std::getline(st, line);)
                if (line.rfind("Uid:", 0) == 0) {
                    if (static_cast<uid_t>(std::stoul(line.substr(4))) == pw->pw_uid) out.push_back(std::stoi(name));
                    break;
                }
        }
        return out;
    }
    static std::string comm_of(int pid) {
        std::string c = read_if_there("/proc/" + std::to_string(pid) + "/comm");
        while (!c.empty() && c.back() == '\n') c.pop_back();
        return c;
    }
    // Pid of user u's `seatmark session` (comm "seatmark-sessio", truncated), or -1.
    static int session_pid_of(const std::string& user) {
        for (int pid : processes_of(user))
            if (comm_of(pid).rfind("seatmark", 0) == 0) return pid;
        return -1;
    }

    void stop() { run_process({script_, "stop", state_}, 60); }

private:
    std::string script_ = std::string(SEATMARK_SOURCE_DIR) + "/scripts/rdp_host.sh";
    std::string state_ = "/tmp/seatmark-rdp-host-test";
    std::string xsession_path_ = "/tmp/seatmark-rdp-host-test.xsession";
    std::vector<RdpUser> users_;
};

}  // namespace seatmark::test
