#pragma once
// Everything seatmark reads about the host and its processes, in one place: host identity, host
// CPU and memory use, and per-process CPU time and RSS. Linux: /proc and uname
// (host_proc_posix.cpp); Windows: per-processor times, GlobalMemoryStatusEx, GetProcessTimes and the
// working set (host_proc_windows.cpp, the agent on a Windows host; a process's CPU time there is
// also summed over its threads, which Wine needs).
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace seatmark::orchestrator {

// The source label of every figure below as stored: "proc" (Linux /proc), "win32" (Windows).
const char* host_proc_source();

// Cumulative CPU jiffies from /proc/stat: [0] is the whole machine, [1..] each core.
// procs_running: tasks runnable right now (running or waiting for a CPU), the instantaneous
// run-queue length; -1 when the kernel did not say.
struct CpuTimes {
    std::vector<uint64_t> busy, total;
    double procs_running = -1;
};
CpuTimes read_cpu_times();
// Busy share (0..100 %) per entry between two readings.
std::vector<double> cpu_percent(const CpuTimes& before, const CpuTimes& after);

// The CPU capacity this process really has (issue 29: a run pinned to 1 CPU of 2 was judged
// against both and said "room for about 6 such sessions" where 2 fit): the smallest of the online
// CPUs, the CPUs it may run on (sched_getaffinity: the cpuset) and its cgroup's CFS quota (v1
// cpu.cfs_quota_us / cpu.cfs_period_us, v2 cpu.max). Windows: the machine's processors.
struct CpuCapacity {
    double cpus = 0;            // the capacity in CPUs (a quota may make it fractional)
    uint32_t online = 0;        // the machine's online CPUs
    std::vector<int> allowed;   // the CPUs it may run on; empty when unknown (then all)
    double quota_cpus = 0;      // CFS quota / period; 0 when none
    // Where the cgroup's own CPU time is read when the quota is the limit: v1 cpuacct.usage (ns)
    // or v2 cpu.stat (usage_usec); "" otherwise.
    std::string usage_path;
    std::string note;           // where it came from: "1 CPU: cpuset 0 of 2 online"; "" when not limited
    bool limited() const { return cpus > 0 && cpus < double(online); }
    // The quota binds (not the cpuset): the busy share is the cgroup's CPU time against it.
    bool quota_binds() const { return limited() && quota_cpus > 0 && quota_cpus <= double(allowed.empty() ? online : allowed.size()); }
};
// The one rule combining the three (pure, host_cpu.cpp): capacity = min of those known, with its note.
CpuCapacity cpu_capacity_from(uint32_t online, std::vector<int> allowed, double quota_cpus);
CpuCapacity read_cpu_capacity();
// The path of a controller's cgroup in a /proc/self/cgroup text: the v1 line naming the
// controller (e.g. "4:cpu,cpuacct:/a/b" -> "/a/b"), else the v2 line "0::/a/b"; nullopt if neither.
std::optional<std::string> cgroup_path_of(std::string_view proc_self_cgroup, std::string_view controller);
// The cgroup's CPU time so far in ns from CpuCapacity::usage_path; nullopt when unreadable.
std::optional<uint64_t> read_cgroup_cpu_ns(const std::string& usage_path);
// Busy share (0..100 %) of the allowed CPUs between two readings, from their per-core lines
// (CpuTimes index c + 1); the whole machine's when allowed is empty.
double allowed_cpu_percent(const CpuTimes& before, const CpuTimes& after, const std::vector<int>& allowed);

struct HostIdentity {
    std::string hostname, cpu_model, os, kernel;
    uint32_t cpu_count = 0;     // online CPUs
    CpuCapacity capacity;       // what this process may use of them
    uint64_t mem_total_bytes = 0;
};
HostIdentity read_host_identity();

struct MemInfo {
    uint64_t total_bytes = 0, available_bytes = 0;
};
MemInfo read_meminfo();
double read_loadavg1();  // NaN on Windows, which has no load average

struct ProcessUsage {
    double cpu_seconds = 0;  // user + system, every thread
    uint64_t rss_bytes = 0;
    char state = '?';        // R, S, D, T (stopped), Z, ... ('?': not read; ProcessUsageReader reads none)
};
// One /proc/PID/stat line; nullopt when it is not one.
std::optional<ProcessUsage> parse_proc_stat(std::string_view line);

// Samples many processes every second: keeps each one's /proc/PID/statm open and reads it with one
// pread instead of open, read and close (with hundreds of sessions, the path lookups were most of
// the sampler's cost), and its CPU time from the process's CPU clock (clock_gettime): formatting
// /proc/PID/stat was a fifth of the run's event-loop CPU with 256 sessions (bench_orchestrator).
// Where that clock cannot be read, /proc/PID/stat gives both. A kept file of a process that
// exited reads nothing, so a pid reused by another process is never mistaken for the session's.
class ProcessUsageReader {
public:
    ProcessUsageReader() = default;
    ~ProcessUsageReader();
    ProcessUsageReader(const ProcessUsageReader&) = delete;
    ProcessUsageReader& operator=(const ProcessUsageReader&) = delete;

    std::optional<ProcessUsage> read(pid_t pid);
    // Ends a sampling pass: closes the files of processes not read since the previous sweep
    // (Windows: forgets the pass's snapshot of threads).
    void sweep();
    size_t open_files() const { return files_.size(); }

private:
    struct Entry {
        int fd = -1;
        bool used = false;
        bool clock = false;  // fd is statm and the CPU time comes from clock_id; else fd is stat
        int clock_id = 0;     // a clockid_t (POSIX only)
    };
    std::unordered_map<pid_t, Entry> files_;
    // Windows: each process's thread ids, from one snapshot of the system's threads per pass
    // (host_proc_windows.cpp sums their CPU times: under Wine GetProcessTimes counts one thread).
    const std::vector<uint32_t>* threads_of(pid_t pid);
    std::unordered_map<pid_t, std::vector<uint32_t>> threads_;
    bool threads_read_ = false;
};

// Raises this process's soft limit on open files to its hard limit (many hosts default to a soft
// 1024 while every session holds a socket and a process handle) and returns the limit in effect.
uint64_t raise_open_file_limit();

}  // namespace seatmark::orchestrator
