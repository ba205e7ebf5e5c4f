#include "orchestrator/linux_proc.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace seatmark::orchestrator {

namespace {

std::string first_line_with(const std::string& path, const std::string& prefix) {
    std::ifstream f(path);
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(prefix, 0) == 0) return line;
    return {};
}

std::string after_colon(const std::string& line) {
    auto p = line.find(':');
    if (p == std::string::npos) return {};
    auto s = line.substr(p + 1);
    s.erase(0, s.find_first_not_of(" \t"));
    return s;
}

}  // namespace

HostIdentity read_host_identity() {
    HostIdentity h;
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
    h.cpu_model = after_colon(first_line_with("/proc/cpuinfo", "model name"));
    h.cpu_count = static_cast<uint32_t>(sysconf(_SC_NPROCESSORS_ONLN));
    h.mem_total_bytes = read_meminfo().total_bytes;
    std::string pretty = first_line_with("/etc/os-release", "PRETTY_NAME=");
    if (!pretty.empty()) {
        pretty = pretty.substr(12);
        if (pretty.size() >= 2 && pretty.front() == '"') pretty = pretty.substr(1, pretty.size() - 2);
    }
    h.os = pretty;
    utsname u{};
    if (uname(&u) == 0) h.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
    return h;
}

CpuTimes read_cpu_times() {
    CpuTimes t;
    std::ifstream f("/proc/stat");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("cpu", 0) != 0) break;
        std::istringstream in(line);
        std::string label;
        in >> label;
        uint64_t v[10] = {};
        for (auto& x : v) in >> x;
        // user nice system idle iowait irq softirq steal (guest times are inside user/nice)
        uint64_t idle = v[3] + v[4];
        uint64_t total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        t.busy.push_back(total - idle);
        t.total.push_back(total);
    }
    return t;
}

std::vector<double> cpu_percent(const CpuTimes& a, const CpuTimes& b) {
    std::vector<double> out;
    for (size_t i = 0; i < a.total.size() && i < b.total.size(); ++i) {
        double dt = double(b.total[i] - a.total[i]);
        out.push_back(dt > 0 ? 100.0 * double(b.busy[i] - a.busy[i]) / dt : 0.0);
    }
    return out;
}

MemInfo read_meminfo() {
    MemInfo m;
    std::ifstream f("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (f >> key >> kb) {
        std::getline(f, unit);
        if (key == "MemTotal:") m.total_bytes = kb * 1024;
        if (key == "MemAvailable:") m.available_bytes = kb * 1024;
    }
    return m;
}

double read_loadavg1() {
    std::ifstream f("/proc/loadavg");
    double v = 0;
    f >> v;
    return v;
}

std::optional<ProcessUsage> read_process_usage(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string s;
    if (!std::getline(f, s)) return std::nullopt;
    // The command name (field 2) is in parentheses and may hold spaces: parse after the last ')'.
    auto close = s.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream in(s.substr(close + 2));
    ProcessUsage u;
    in >> u.state;
    std::string skip;
    for (int i = 0; i < 10; ++i) in >> skip;  // fields 4..13
    uint64_t utime = 0, stime = 0;
    in >> utime >> stime;                      // fields 14, 15
    static const double ticks = double(sysconf(_SC_CLK_TCK));
    u.cpu_seconds = double(utime + stime) / ticks;
    std::ifstream m("/proc/" + std::to_string(pid) + "/statm");
    uint64_t size = 0, resident = 0;
    if (m >> size >> resident) u.rss_bytes = resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    return u;
}

uint64_t raise_open_file_limit() {
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 1024;
    if (lim.rlim_cur < lim.rlim_max) {
        rlimit want = lim;
        want.rlim_cur = lim.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &want) == 0) lim = want;
    }
    return lim.rlim_cur == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(lim.rlim_cur);
}

}  // namespace seatmark::orchestrator
