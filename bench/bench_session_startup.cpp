// What one session process costs the host before it draws: peak resident memory,
// start-up time to its first frame, and the shared libraries it maps. Issue 11: the
// measured process carries only a session (no MPI, EGL/OpenGL, GLFW/X11, SQLite).
//
//   bench_session_startup [REPEATS] [OLD_SEATMARK]
//
// Measures this build's seatmark-session (what `seatmark run` starts) and `seatmark
// session` (which execs it), each headless on Vulkan (ci-tiny) and synthetic. With
// OLD_SEATMARK (a seatmark binary of an earlier build, run as `OLD session ...`) it
// measures that too, in the same run, so the before/after ratio is from one machine state.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>
#include <utility>
#include <sstream>
#include <string>
#include <vector>

#include "common/clock.h"

namespace {

struct Sample {
    double startup_ms = -1;  // spawn -> first frame begins
    double rss_mib = 0;      // peak resident set (ru_maxrss)
    size_t libraries = 0;    // shared objects mapped at most while it ran as its final executable (after any exec)
    bool heavy = false;      // maps libmpi, libEGL, libOpenGL, libglfw or libsqlite3
};

std::set<std::string> mapped_libraries(pid_t pid) {
    std::set<std::string> libs;
    std::ifstream f("/proc/" + std::to_string(pid) + "/maps");
    std::string line;
    while (std::getline(f, line)) {
        auto slash = line.find('/');
        if (slash == std::string::npos || line.find(".so") == std::string::npos) continue;
        libs.insert(std::filesystem::path(line.substr(slash)).filename().string());
    }
    return libs;
}

// Runs argv to its end; its first frame's begin comes from its CSV (CLOCK_MONOTONIC is host-wide).
Sample measure(std::vector<std::string> argv, const std::string& csv) {
    argv.insert(argv.end(), {"--duration", "1500ms", "--quiet", "--out", csv});
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    const int64_t t0 = seatmark::now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = ::open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        execv(args[0], args.data());
        _exit(127);
    }
    Sample s;
    std::vector<std::pair<std::string, std::set<std::string>>> looks;  // (executable, libraries)
    for (int i = 0; i < 300; ++i) {  // look at the maps while it runs (about 1.5 s)
        usleep(5000);
        std::error_code ec;
        auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
        auto now = mapped_libraries(pid);
        if (!ec && !now.empty()) looks.emplace_back(exe.string(), std::move(now));
    }
    std::set<std::string> libs;
    for (const auto& [exe, l] : looks)
        if (exe == looks.back().first && l.size() > libs.size()) libs = l;
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    s.rss_mib = double(ru.ru_maxrss) / 1024.0;
    s.libraries = libs.size();
    for (const auto& l : libs)
        for (const char* h : {"libmpi", "libEGL", "libOpenGL", "libglfw", "libsqlite3"})
            if (l.rfind(h, 0) == 0) s.heavy = true;
    std::ifstream f(csv);
    std::string header, first;
    if (std::getline(f, header) && std::getline(f, first)) {
        std::stringstream row(first);
        std::string seq, begin;
        std::getline(row, seq, ',');
        std::getline(row, begin, ',');
        s.startup_ms = double(std::stoll(begin) - t0) * 1e-6;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) s.startup_ms = -1;
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? -1 : v[v.size() / 2];
}

void report(const char* name, const std::vector<Sample>& samples) {
    std::vector<double> st, rss;
    for (const auto& s : samples) {
        st.push_back(s.startup_ms);
        rss.push_back(s.rss_mib);
    }
    std::printf("  %-44s start-up %8.1f ms   peak RSS %7.1f MiB   %3zu libraries%s\n", name, median(st), median(rss),
                samples.back().libraries, samples.back().heavy ? "  (maps MPI/GL/GLFW/SQLite)" : "");
}

}  // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const std::string old = argc > 2 ? argv[2] : "";
    auto bin = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
    const std::string lean = (bin / "seatmark-session").string(), seatmark = (bin / "seatmark").string();
    auto dir = std::filesystem::temp_directory_path() / ("seatmark-bench-startup-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string csv = (dir / "f.csv").string();

    struct Variant {
        std::string name;
        std::vector<std::string> argv;
    };
    std::vector<Variant> variants;
    for (const char* mode : {"vulkan", "synthetic"}) {
        std::vector<std::string> extra = std::string(mode) == "vulkan"
                                             ? std::vector<std::string>{"--workload", "ci-tiny"}
                                             : std::vector<std::string>{"--synthetic-fps", "60"};
        auto with = [&](std::vector<std::string> a) {
            a.insert(a.end(), extra.begin(), extra.end());
            return a;
        };
        variants.push_back({std::string("seatmark-session (run starts it), ") + mode, with({lean})});
        variants.push_back({std::string("seatmark session (execs it), ") + mode, with({seatmark, "session"})});
        if (!old.empty()) variants.push_back({std::string("old `seatmark session`, ") + mode, with({old, "session"})});
    }
    std::printf("bench_session_startup: %d runs each, median; start-up = spawn -> first frame begins\n", repeats);
    for (const auto& v : variants) {
        std::vector<Sample> samples;
        for (int i = 0; i < repeats; ++i) samples.push_back(measure(v.argv, csv));
        report(v.name.c_str(), samples);
    }
    std::filesystem::remove_all(dir);
}
