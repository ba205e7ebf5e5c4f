#pragma once
// A host's own figures as store rows, the same on every platform (what the run's host sampler
// and `seatmark agent` record): CPU busy share of the capacity the process really has
// (host_cpu_pct: the whole machine, or under a cpuset or CFS quota smaller than it the allowed
// CPUs' busy share or the cgroup's CPU time against the quota; host_proc.h CpuCapacity) and of each
// core (coreN_cpu_pct), memory in use (host_mem_used_bytes), the load average and run queue
// where the OS has them (host_load1, host_run_queue: Linux), and per watched process its CPU
// share (cpu_pct, of one core: 100 = one core busy) and resident memory (rss_bytes; the working
// set on Windows). How they are read is host_proc.h (host_proc_posix.cpp: /proc;
// host_proc_windows.cpp: Win32); every row carries that reader's source label.
#include <sys/types.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "orchestrator/host_proc.h"
#include "store/records.h"

namespace seatmark::orchestrator {

struct WatchedProcess {
    int session_id = -1;
    pid_t pid = 0;
};

// One watched process as read this time: what the rows hold, for callers that keep it too.
struct ProcessFigures {
    int session_id = -1;
    pid_t pid = 0;
    std::optional<double> cpu_pct;  // empty on its first reading (no interval yet)
    double cpu_seconds = 0;         // user + kernel time so far
    uint64_t rss_bytes = 0;
};

class HostFigures {
public:
    HostFigures();  // takes the first CPU reading, so the first sample has an interval

    struct Sample {
        std::vector<store::SampleRow> rows;
        std::vector<ProcessFigures> processes;  // the watched processes still running
    };
    Sample sample(int64_t t_ns, const std::vector<WatchedProcess>& watched);

    double host_cpu_pct() const { return host_cpu_pct_; }  // NaN before the first sample
    const char* source() const { return host_proc_source(); }

private:
    struct Prev {
        int64_t t_ns = 0;
        double cpu_s = 0;
    };
    CpuTimes cpu_prev_;
    CpuCapacity capacity_ = read_cpu_capacity();
    std::optional<uint64_t> cgroup_prev_ns_;  // the cgroup's CPU time at the previous sample (quota)
    int64_t cgroup_prev_t_ = 0;
    ProcessUsageReader usage_;
    std::map<pid_t, Prev> prev_;
    double host_cpu_pct_ = NAN;
};

}  // namespace seatmark::orchestrator
