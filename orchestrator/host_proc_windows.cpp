// orchestrator/host_proc.h on Windows, for `seatmark.exe agent`: the host's CPU per core from
// NtQuerySystemInformation(SystemProcessorPerformanceInformation) (what Task Manager and PDH's
// \Processor(*) are built on), memory from GlobalMemoryStatusEx, and each session's CPU time
// (the larger of GetProcessTimes and the sum of its threads' GetThreadTimes) and working set
// (GetProcessMemoryInfo) by pid.
#include <windows.h>
#include <winternl.h>
#include <psapi.h>
#include <tlhelp32.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "common/self_exe.h"
#include "common/win_text.h"
#include "orchestrator/host_proc.h"

namespace seatmark::orchestrator {

namespace {

// winternl.h leaves this one out; the layout is the documented one.
struct ProcessorTimes {
    LARGE_INTEGER idle, kernel, user;  // kernel includes idle; 100 ns units
    LARGE_INTEGER dpc, interrupt;
    ULONG interrupts;
};
constexpr int system_processor_performance_information = 8;

uint64_t ticks(const FILETIME& f) { return (uint64_t(f.dwHighDateTime) << 32) | f.dwLowDateTime; }

std::string registry_string(HKEY root, const wchar_t* key, const wchar_t* value) {
    wchar_t buf[256];
    DWORD bytes = sizeof buf;
    if (RegGetValueW(root, key, value, RRF_RT_REG_SZ, nullptr, buf, &bytes) != ERROR_SUCCESS) return "";
    return utf8(buf);
}

}  // namespace

const char* host_proc_source() { return "win32"; }

HostIdentity read_host_identity() {
    HostIdentity h;
    h.hostname = host_name();
    h.cpu_model = registry_string(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                                  L"ProcessorNameString");
    const std::string product =
        registry_string(HKEY_LOCAL_MACHINE, L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", L"ProductName");
    const std::string build =
        registry_string(HKEY_LOCAL_MACHINE, L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", L"CurrentBuildNumber");
    h.os = product.empty() ? "Windows" : product;
    h.kernel = build.empty() ? "" : "build " + build;
    h.cpu_count = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    h.capacity = read_cpu_capacity();
    MEMORYSTATUSEX m{};
    m.dwLength = sizeof m;
    if (GlobalMemoryStatusEx(&m)) h.mem_total_bytes = m.ullTotalPhys;
    return h;
}

// Windows keeps the machine's processors (job-object CPU limits are not read).
CpuCapacity read_cpu_capacity() { return cpu_capacity_from(GetActiveProcessorCount(ALL_PROCESSOR_GROUPS), {}, 0); }
std::optional<std::string> cgroup_path_of(std::string_view, std::string_view) { return std::nullopt; }
std::optional<uint64_t> read_cgroup_cpu_ns(const std::string&) { return std::nullopt; }

CpuTimes read_cpu_times() {
    CpuTimes t;
    SYSTEM_INFO si{};
    GetSystemInfo(&si);
    std::vector<ProcessorTimes> per(si.dwNumberOfProcessors ? si.dwNumberOfProcessors : 1);
    ULONG got = 0;
    const NTSTATUS st = NtQuerySystemInformation(SYSTEM_INFORMATION_CLASS(system_processor_performance_information),
                                                 per.data(), ULONG(per.size() * sizeof(ProcessorTimes)), &got);
    if (st != 0) {
        // The whole machine only.
        FILETIME idle, kernel, user;
        if (!GetSystemTimes(&idle, &kernel, &user)) return t;
        t.total.push_back(ticks(kernel) + ticks(user));
        t.busy.push_back(t.total[0] - ticks(idle));
        return t;
    }
    per.resize(got / sizeof(ProcessorTimes));
    t.busy.push_back(0);
    t.total.push_back(0);
    for (const auto& p : per) {
        const uint64_t total = uint64_t(p.kernel.QuadPart) + uint64_t(p.user.QuadPart);
        const uint64_t busy = total - uint64_t(p.idle.QuadPart);
        t.total.push_back(total);
        t.busy.push_back(busy);
        t.total[0] += total;
        t.busy[0] += busy;
    }
    return t;
}

MemInfo read_meminfo() {
    MemInfo m;
    MEMORYSTATUSEX s{};
    s.dwLength = sizeof s;
    if (GlobalMemoryStatusEx(&s)) {
        m.total_bytes = s.ullTotalPhys;
        m.available_bytes = s.ullAvailPhys;
    }
    return m;
}

double read_loadavg1() { return NAN; }

std::optional<ProcessUsage> parse_proc_stat(std::string_view) { return std::nullopt; }  // no /proc here

ProcessUsageReader::~ProcessUsageReader() = default;

namespace {

// The CPU time of every thread of `pid` alive now, in 100 ns units. On Windows GetProcessTimes
// already holds it (and the threads that exited); under Wine it does not: for another process it
// counts only the main thread (a child busy in 2 threads for 3 s read 0.09 s), while
// GetThreadTimes reads each thread's /proc/PID/task/TID/stat. The larger of the two is right on both.
uint64_t threads_cpu_ticks(const std::vector<uint32_t>& tids) {
    uint64_t sum = 0;
    for (uint32_t tid : tids) {
        HANDLE t = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, DWORD(tid));
        if (!t) continue;  // exited since the snapshot
        FILETIME created, exited, kernel, user;
        if (GetThreadTimes(t, &created, &exited, &kernel, &user)) sum += ticks(kernel) + ticks(user);
        CloseHandle(t);
    }
    return sum;
}

}  // namespace

// Threads by process, from one snapshot of the system's threads per sampling pass (sweep() ends
// a pass): a snapshot per session would walk every thread of the host once per session.
const std::vector<uint32_t>* ProcessUsageReader::threads_of(pid_t pid) {
    if (!threads_read_) {
        threads_.clear();
        threads_read_ = true;
        HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
        if (snap != INVALID_HANDLE_VALUE) {
            THREADENTRY32 te{};
            te.dwSize = sizeof te;
            for (BOOL ok = Thread32First(snap, &te); ok; ok = Thread32Next(snap, &te))
                if (te.dwSize >= offsetof(THREADENTRY32, th32OwnerProcessID) + sizeof te.th32OwnerProcessID)
                    threads_[pid_t(te.th32OwnerProcessID)].push_back(uint32_t(te.th32ThreadID));
            CloseHandle(snap);
        }
    }
    auto it = threads_.find(pid);
    return it == threads_.end() ? nullptr : &it->second;
}

// Opened per read (a handle per session would hold every exited session's process object);
// an exited process reads nothing, so a session that ended is not counted.
std::optional<ProcessUsage> ProcessUsageReader::read(pid_t pid) {
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, DWORD(pid));
    if (!h) return std::nullopt;
    std::optional<ProcessUsage> out;
    DWORD code = 0;
    FILETIME created, exited, kernel, user;
    PROCESS_MEMORY_COUNTERS mc{};
    mc.cb = sizeof mc;
    if (GetExitCodeProcess(h, &code) && code == STILL_ACTIVE && GetProcessTimes(h, &created, &exited, &kernel, &user) &&
        GetProcessMemoryInfo(h, &mc, sizeof mc)) {
        ProcessUsage u;
        const std::vector<uint32_t>* tids = threads_of(pid);
        u.cpu_seconds = double(std::max(ticks(kernel) + ticks(user), tids ? threads_cpu_ticks(*tids) : 0)) * 1e-7;
        u.rss_bytes = mc.WorkingSetSize;  // the working set: what Task Manager's "Memory" column is based on
        u.state = 'R';
        out = u;
    }
    CloseHandle(h);
    return out;
}

void ProcessUsageReader::sweep() { threads_read_ = false; }

// Windows has no per-process descriptor limit like RLIMIT_NOFILE (handles run to 16 million).
uint64_t raise_open_file_limit() { return 16u << 20; }

}  // namespace seatmark::orchestrator
