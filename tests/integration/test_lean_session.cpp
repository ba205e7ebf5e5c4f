// The process `seatmark run` measures carries only a session: no MPI, EGL/OpenGL,
// GLFW/X11 or SQLite mapped, and no descriptor of the orchestrator's inherited (its
// live-API and telemetry listening sockets, its event loop's epoll/eventfd/timerfd,
// the database). Read from /proc of a real orchestrated session on real Vulkan.
#include <doctest/doctest.h>

#include <linux/kcmp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "store/store_reader.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

// What each of the process's descriptors from 3 up refers to ("socket:[123]", a path, ...).
std::map<int, std::string> descriptors(int pid) {
    std::map<int, std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
        int fd = std::stoi(e.path().filename().string());
        if (fd < 3) continue;
        std::error_code lec;
        auto target = std::filesystem::read_symlink(e.path(), lec);
        if (!lec) out[fd] = target.string();
    }
    return out;
}

// True when the descriptor is close-on-exec (O_CLOEXEC in /proc/PID/fdinfo/FD's octal flags).
bool cloexec(int pid, int fd) {
    std::string info = read_file("/proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd));
    auto at = info.find("flags:");
    if (at == std::string::npos) return false;
    return (std::stoul(info.substr(at + 6), nullptr, 8) & 02000000) != 0;
}

int session_pid(const std::string& db) {
    try {
        store::StoreReader r(db);
        for (const auto& s : r.sessions())
            if (s.pid > 0) return static_cast<int>(s.pid);
    } catch (...) {
    }
    return 0;
}

}  // namespace

TEST_CASE("an orchestrated session maps no MPI, GL, GLFW or SQLite library and inherits no descriptor") {
    TempDir dir;
    write_file(dir.file("plan.toml"),
               "name = \"lean\"\n[run]\nallow_software = true\nheartbeat_timeout = \"10s\"\nstop = \"max\"\n[steps]\nlist = [1]\n"
               "settle = \"1s\"\nwindow = \"6s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--listen",
                                         "127.0.0.1:0", "--quiet"}));
    int pid = 0;
    std::string maps;
    // Running: rendering on Vulkan and connected (a socket of its own).
    REQUIRE(wait_until(90, [&] {
        if (!pid) pid = session_pid(dir.file("run.db"));
        if (!pid) return false;
        // Between fork and exec the child is still a copy of the orchestrator.
        std::error_code ec;
        auto image = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
        if (ec || image.filename() != "seatmark-session") return false;
        maps = read_file("/proc/" + std::to_string(pid) + "/maps");
        bool socket = false;
        for (const auto& [fd, what] : descriptors(pid)) socket |= what.rfind("socket:", 0) == 0;
        return maps.find("libvulkan") != std::string::npos && socket;
    }));
    auto session_fds = descriptors(pid);
    auto orchestrator_fds = descriptors(run.pid());
    std::string exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe").filename().string();
    maps = read_file("/proc/" + std::to_string(pid) + "/maps");
    // The session has an epoll, eventfd and timerfd of its own (its telemetry sender's Asio loop),
    // so names cannot tell; kcmp(KCMP_FILE) says whether two descriptors are one open file
    // (both processes alive).
    // Where kcmp is not allowed (a container's seccomp profile), sockets still compare by their
    // inode ("socket:[N]" is unique) and files by path; event descriptors then cannot be told apart.
    std::vector<std::string> inherited, kcmp_errors;
    int compared = 0;
    bool kcmp_usable = true;
    for (const auto& [fd, what] : session_fds)
        for (const auto& [ofd, theirs] : orchestrator_fds) {
            bool same = false;
            if (kcmp_usable) {
                long r = syscall(SYS_kcmp, pid, run.pid(), KCMP_FILE, fd, ofd);
                if (r < 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES)) {
                    kcmp_usable = false;
                    MESSAGE("kcmp unavailable (" << std::strerror(errno) << "): comparing sockets and files by identity only");
                } else if (r < 0) {
                    kcmp_errors.push_back(std::strerror(errno));
                }
                same = r == 0;
            }
            if (!kcmp_usable) same = what == theirs && what.rfind("anon_inode:", 0) != 0;
            if (same) inherited.push_back(std::to_string(fd) + " " + what + " = orchestrator's " + std::to_string(ofd));
            ++compared;
        }
    // Every descriptor the orchestrator opened is close-on-exec itself, not only marked in the
    // child: all but those it inherited from this test process (same number, same target).
    auto ours = descriptors(getpid());
    std::vector<std::string> not_cloexec;
    for (const auto& [fd, what] : orchestrator_fds) {
        auto it = ours.find(fd);
        if (it != ours.end() && it->second == what) continue;
        if (!cloexec(run.pid(), fd)) not_cloexec.push_back(std::to_string(fd) + " " + what);
    }
    run.signal(SIGINT);
    auto r = run.wait(120);
    INFO(r.out << r.err);
    INFO("session maps:\n" << maps);

    CHECK(exe == "seatmark-session");
    CHECK(kcmp_errors.empty());
    CHECK(compared > 0);
    for (const auto& i : inherited) FAIL_CHECK("inherited descriptor " << i);
    for (const auto& n : not_cloexec) FAIL_CHECK("orchestrator descriptor without close-on-exec: " << n);
    for (const auto& [fd, what] : session_fds) CHECK(what.find("run.db") == std::string::npos);
    // (Mesa's Vulkan drivers map libX11-xcb for their own window-system support; that is the driver's.)
    for (const char* lib : {"libmpi", "libopen-rte", "libopen-pal", "libEGL", "libOpenGL", "libGLX", "libGL.so",
                            "libglfw", "libX11.so", "libsqlite3", "libhwloc"}) {
        CAPTURE(lib);
        CHECK(maps.find(lib) == std::string::npos);
    }

    CHECK_FALSE(r.timed_out);  // the run stops when asked (it reads as aborted: stopped before its end)
}

TEST_CASE("a headless session maps no GLFW, X11 or GL library, and `seatmark session` runs the lean executable") {
    BackgroundProcess s(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "30s", "--quiet"}));
    std::string maps;
    REQUIRE(wait_until(60, [&] {
        // Exec'd into seatmark-session and past its main()'s stop handler (a SIGTERM is then handled).
        if (!handles_sigterm(s.pid(), "seatmark-session")) return false;
        maps = read_file("/proc/" + std::to_string(s.pid()) + "/maps");
        return maps.find("libvulkan") != std::string::npos;
    }));
    std::string exe = std::filesystem::read_symlink("/proc/" + std::to_string(s.pid()) + "/exe").filename().string();
    s.signal(SIGTERM);
    auto r = s.wait(60);
    INFO(r.out << r.err);
    CHECK(exe == "seatmark-session");  // exec'd in place: the same pid
    for (const char* lib : {"libglfw", "libX11.so", "libEGL", "libOpenGL", "libmpi", "libsqlite3"}) {
        CAPTURE(lib);
        CHECK(maps.find(lib) == std::string::npos);
    }
    CHECK(r.exit_code == 0);
}
