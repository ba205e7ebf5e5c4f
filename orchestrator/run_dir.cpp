#include "orchestrator/run_dir.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace seatmark::orchestrator {

namespace {

constexpr const char* prefix = "seatmark-run-";
int removed_last = 0;

// Field 22 of /proc/PID/stat, the process's start time in clock ticks since boot: with the pid,
// it names one process, so a pid reused by another program does not keep a folder alive.
std::string start_time_of(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(f, line)) return "";
    auto close = line.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) return "";
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i)
        if (i == 22) return field;
    return "";
}

bool owner_alive(const std::string& owner_text) {
    std::istringstream in(owner_text);
    long long pid = 0;
    std::string started;
    if (!(in >> pid >> started) || pid <= 0 || pid > 0x7fffffff) return true;  // not ours to judge: keep
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
    std::string now = start_time_of(static_cast<pid_t>(pid));
    return now.empty() || now == started;  // unreadable (another pid namespace): keep
}

}  // namespace

std::string run_dir_parent() {
    const char* env = std::getenv("TMPDIR");
    if (!env || env[0] != '/') return "/tmp";
    std::string dir = env;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    constexpr size_t sun_path_max = 107;  // sockaddr_un's 108 bytes, less the terminating NUL
    const size_t socket_path = dir.size() + std::string("/seatmark-run-XXXXXX/telemetry.sock").size();
    std::error_code ec;
    if (socket_path > sun_path_max || !std::filesystem::is_directory(dir, ec)) return "/tmp";
    return dir;
}

std::string make_private_run_dir(const std::string& parent) {
    removed_last = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(parent, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        struct stat st {};
        // Only real folders of this user (never follow a link someone else planted).
        if (::lstat(e.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
        std::ifstream owner(e.path() / "owner");
        if (!owner) continue;  // a folder of an older seatmark, or one being set up right now
        std::stringstream text;
        text << owner.rdbuf();
        if (owner_alive(text.str())) continue;
        std::error_code rm;
        std::filesystem::remove_all(e.path(), rm);
        if (!rm) ++removed_last;
    }
    std::string tmpl = parent + "/" + prefix + "XXXXXX";
    if (!::mkdtemp(tmpl.data()))
        throw std::runtime_error("cannot create a private folder for the telemetry socket in " + parent + ": " +
                                 std::strerror(errno));
    std::ofstream owner(tmpl + "/owner");
    owner << ::getpid() << " " << start_time_of(::getpid()) << "\n";
    owner.close();
    if (!owner) {
        std::filesystem::remove_all(tmpl, ec);
        throw std::runtime_error("cannot write " + tmpl + "/owner (is " + parent + " full?)");
    }
    return tmpl;
}

int stale_run_dirs_removed() { return removed_last; }

}  // namespace seatmark::orchestrator
