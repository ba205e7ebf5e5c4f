#include "orchestrator/host_proc.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstdio>
#include <ctime>
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

const char* host_proc_source() { return "proc"; }

HostIdentity read_host_identity() {
    HostIdentity h;
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
    h.cpu_model = after_colon(first_line_with("/proc/cpuinfo", "model name"));
    h.cpu_count = static_cast<uint32_t>(sysconf(_SC_NPROCESSORS_ONLN));
    h.capacity = read_cpu_capacity();
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

std::optional<std::string> cgroup_path_of(std::string_view text, std::string_view controller) {
    std::optional<std::string> v2;
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        // hierarchy-id:controller,controller:path
        const size_t a = line.find(':'), b = a == std::string_view::npos ? a : line.find(':', a + 1);
        if (b == std::string_view::npos) continue;
        std::string_view list = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (line.substr(0, a) == "0" && list.empty()) {
            v2 = std::string(path);
            continue;
        }
        while (!list.empty()) {
            const size_t c = list.find(',');
            if (list.substr(0, c) == controller) return std::string(path);
            list = c == std::string_view::npos ? std::string_view() : list.substr(c + 1);
        }
    }
    return v2;
}

namespace {

std::string read_small(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The v1 mount of a controller (/sys/fs/cgroup/cpu, or a joint cpu,cpuacct) holding a cgroup path.
std::string v1_dir(const std::string& controller, const std::string& path) {
    for (const std::string& m : {controller, std::string("cpu,cpuacct"), std::string("cpuacct,cpu")})
        if (::access(("/sys/fs/cgroup/" + m).c_str(), F_OK) == 0) return "/sys/fs/cgroup/" + m + path;
    return {};
}

// The tightest CFS quota in CPUs of the cgroup at dir and its parents up to the mount (a
// parent's limit binds its children too); 0 when none. v2: "max 100000" or "150000 100000".
double quota_cpus_at(std::string dir, const std::string& mount, bool v2) {
    double best = 0;
    for (;;) {
        double q = 0, p = 0;
        if (v2) {
            std::istringstream in(read_small(dir + "/cpu.max"));
            std::string qs;
            if (in >> qs >> p && qs != "max") q = std::strtod(qs.c_str(), nullptr);
        } else {
            q = std::strtod(read_small(dir + "/cpu.cfs_quota_us").c_str(), nullptr);
            p = std::strtod(read_small(dir + "/cpu.cfs_period_us").c_str(), nullptr);
        }
        if (q > 0 && p > 0 && (best == 0 || q / p < best)) best = q / p;
        if (dir.size() <= mount.size()) return best;
        dir = dir.substr(0, dir.rfind('/'));
    }
}

}  // namespace

CpuCapacity read_cpu_capacity() {
    const uint32_t online = static_cast<uint32_t>(sysconf(_SC_NPROCESSORS_ONLN));
    std::vector<int> allowed;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) allowed.push_back(c);
    const std::string self = read_small("/proc/self/cgroup");
    double quota = 0;
    std::string usage;
    const auto v1cpu = cgroup_path_of(self, "cpu");
    // Only the v2 line answers "" (no v1 line has an empty controller list).
    const auto v2 = cgroup_path_of(self, "");
    const bool is_v1 = v1cpu && (!v2 || self.find(",cpu,") != std::string::npos || self.find(":cpu,") != std::string::npos ||
                                 self.find(",cpu:") != std::string::npos || self.find(":cpu:") != std::string::npos);
    if (is_v1) {
        const std::string mount = v1_dir("cpu", "");
        if (!mount.empty()) quota = quota_cpus_at(mount + (*v1cpu == "/" ? "" : *v1cpu), mount, false);
        // cpuacct counts the group the quota limits only when it is the same cgroup (a joint
        // cpu,cpuacct mount, or the same path in both); else the figure falls back to the cores'.
        if (auto acct = cgroup_path_of(self, "cpuacct"); acct && *acct == *v1cpu) {
            const std::string m = v1_dir("cpuacct", "");
            if (!m.empty()) usage = m + (*acct == "/" ? "" : *acct) + "/cpuacct.usage";
        }
    } else if (v1cpu) {  // the v2 line: cgroup2 at /sys/fs/cgroup (or /sys/fs/cgroup/unified beside v1)
        for (const std::string mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
            if (::access((mount + "/cgroup.controllers").c_str(), F_OK) != 0) continue;
            const std::string dir = mount + (*v1cpu == "/" ? "" : *v1cpu);
            quota = quota_cpus_at(dir, mount, true);
            usage = dir + "/cpu.stat";
            break;
        }
    }
    CpuCapacity c = cpu_capacity_from(online, std::move(allowed), quota);
    if (c.quota_binds() && read_cgroup_cpu_ns(usage)) c.usage_path = usage;
    return c;
}

std::optional<uint64_t> read_cgroup_cpu_ns(const std::string& path) {
    if (path.empty()) return std::nullopt;
    const std::string text = read_small(path);
    if (path.ends_with("cpu.stat")) {
        const auto at = text.find("usage_usec ");
        if (at == std::string::npos) return std::nullopt;
        return std::strtoull(text.c_str() + at + 11, nullptr, 10) * 1000;
    }
    if (text.empty()) return std::nullopt;
    return std::strtoull(text.c_str(), nullptr, 10);
}

CpuTimes read_cpu_times() {
    CpuTimes t;
    std::ifstream f("/proc/stat");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("procs_running ", 0) == 0) {
            t.procs_running = std::strtod(line.c_str() + 14, nullptr);
            break;  // the last line wanted
        }
        if (line.rfind("cpu", 0) != 0) continue;  // intr, ctxt, btime, processes: not wanted
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

std::optional<ProcessUsage> parse_proc_stat(std::string_view line) {
    // The command name (field 2) is in parentheses and may hold spaces and ')': parse after the last ')'.
    auto close = line.rfind(')');
    if (close == std::string_view::npos || close + 2 >= line.size()) return std::nullopt;
    line.remove_prefix(close + 2);
    ProcessUsage u;
    u.state = line[0];
    // Fields from 3 (state) on, space-separated: utime is 14, stime 15, rss (pages) 24.
    uint64_t utime = 0, stime = 0, rss = 0;
    int field = 3;
    size_t pos = 0;
    while (pos < line.size() && field <= 24) {
        size_t end = line.find(' ', pos);
        if (end == std::string_view::npos) end = line.size();
        if (field == 14 || field == 15 || field == 24) {
            uint64_t v = 0;
            auto [p, ec] = std::from_chars(line.data() + pos, line.data() + end, v);
            if (ec != std::errc()) return std::nullopt;
            (field == 14 ? utime : field == 15 ? stime : rss) = v;
        }
        pos = end + 1;
        ++field;
    }
    if (field <= 24) return std::nullopt;  // truncated
    static const double ticks = double(sysconf(_SC_CLK_TCK));
    static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    u.cpu_seconds = double(utime + stime) / ticks;
    u.rss_bytes = rss * page;
    return u;
}

namespace {

std::optional<ProcessUsage> pread_stat(int fd) {
    char buf[1024];
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return std::nullopt;  // ESRCH: the process is gone
    return parse_proc_stat(std::string_view(buf, static_cast<size_t>(n)));
}

// /proc/PID/statm's second field, resident pages; nullopt when the process is gone.
std::optional<uint64_t> pread_statm_rss(int fd) {
    char buf[256];
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return std::nullopt;
    std::string_view line(buf, static_cast<size_t>(n));
    auto sp = line.find(' ');
    if (sp == std::string_view::npos) return std::nullopt;
    uint64_t pages = 0;
    auto [p, ec] = std::from_chars(line.data() + sp + 1, line.data() + line.size(), pages);
    if (ec != std::errc()) return std::nullopt;
    return pages;
}

// A process's CPU time (every thread, user + system, as the scheduler counts it) from its CPU
// clock: one system call, where /proc/PID/stat formats 52 fields.
std::optional<double> cpu_clock_s(clockid_t id) {
    timespec ts{};
    if (::clock_gettime(id, &ts) != 0) return std::nullopt;
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

int open_proc(pid_t pid, const char* file) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/%s", static_cast<int>(pid), file);
    return ::open(path, O_RDONLY | O_CLOEXEC);
}

}  // namespace

ProcessUsageReader::~ProcessUsageReader() {
    for (auto& [pid, e] : files_) ::close(e.fd);
}

std::optional<ProcessUsage> ProcessUsageReader::read(pid_t pid) {
    auto it = files_.find(pid);
    if (it == files_.end()) {
        // The CPU clock where the kernel lets us read it (statm then gives the RSS), else stat for both.
        clockid_t id{};
        const bool clock = ::clock_getcpuclockid(pid, &id) == 0 && cpu_clock_s(id);
        int fd = open_proc(pid, clock ? "statm" : "stat");
        if (fd < 0) return std::nullopt;
        it = files_.emplace(pid, Entry{fd, false, clock, static_cast<int>(id)}).first;
    }
    it->second.used = true;
    std::optional<ProcessUsage> u;
    if (it->second.clock) {
        // The clock first, then the kept file: a readable file proves the pid was still this
        // process's when the clock was read (a pid is not reused before its process is reaped).
        auto cpu = cpu_clock_s(static_cast<clockid_t>(it->second.clock_id));
        auto rss = pread_statm_rss(it->second.fd);
        if (cpu && rss) {
            static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
            u = ProcessUsage{*cpu, *rss * page};
        }
    } else {
        u = pread_stat(it->second.fd);
    }
    if (!u) {  // gone: a later process with the same pid gets a fresh file
        ::close(it->second.fd);
        files_.erase(it);
    }
    return u;
}

void ProcessUsageReader::sweep() {
    for (auto it = files_.begin(); it != files_.end();) {
        if (!it->second.used) {
            ::close(it->second.fd);
            it = files_.erase(it);
        } else {
            it->second.used = false;
            ++it;
        }
    }
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
