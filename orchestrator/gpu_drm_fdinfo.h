#pragma once
// The DRM client usage stats a kernel driver prints in /proc/PID/fdinfo/FD for
// an open DRM device (Documentation/gpu/drm-usage-stats.rst), and per-process
// engine busy shares from the deltas of two readings. Pure: gpu_drm.h does the I/O.
//
// Keys used:
//   drm-driver, drm-pdev, drm-client-id          which client of which device (the dedup key)
//   drm-engine-<e>: <ns> ns                      busy time per engine (amdgpu, i915, ...)
//   drm-engine-capacity-<e>: <n>                 identical engines behind <e> (default 1)
//   drm-cycles-<e>, drm-total-cycles-<e>         busy and elapsed GPU cycles (xe)
//   drm-resident-<region>: <n> [KiB|MiB|GiB]     memory resident per region
//   drm-memory-<region>                          the older name of the same (amdgpu before 6.8)
//   drm-total-<region>                           memory allocated per region
// Counters that go backwards are held at the larger value seen, as the spec asks.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seatmark::orchestrator {

struct DrmEngineCounter {
    uint64_t busy = 0;          // ns (drm-engine-*) or cycles (drm-cycles-*)
    uint64_t total_cycles = 0;  // drm-total-cycles-* (cycles only)
    bool cycles = false;        // busy counts cycles against total_cycles, not ns against wall time
    uint32_t capacity = 1;      // drm-engine-capacity-*
};

struct DrmFdinfo {
    std::string driver;                  // drm-driver
    std::string pdev;                    // drm-pdev, "" when absent
    std::optional<uint64_t> client_id;   // drm-client-id
    std::map<std::string, DrmEngineCounter> engines;
    std::map<std::string, uint64_t> resident_bytes;  // per region (drm-resident-*, else drm-memory-*)
    std::map<std::string, uint64_t> total_bytes;     // per region (drm-total-*)

    // Device memory the client holds: resident bytes over every region except amdgpu's
    // 'cpu' domain (system memory the GPU does not map).
    uint64_t memory_bytes() const;
};

// Parses one fdinfo file; nullopt when it is not a DRM client's (no drm-driver key).
std::optional<DrmFdinfo> parse_drm_fdinfo(std::string_view text);
// "123", "123 KiB", "4 MiB", "1 GiB" -> bytes; nullopt when not a size.
std::optional<uint64_t> parse_drm_size(std::string_view value);

// One reading of a process's DRM file descriptors.
struct DrmFd {
    int fd = -1;
    DrmFdinfo info;
};
struct DrmReading {
    pid_t pid = 0;
    std::vector<DrmFd> fds;
};

struct DrmProcessUsage {
    std::string driver, pdev;
    std::map<std::string, double> engine_busy_pct;  // per engine, 0..100 of its capacity
    std::optional<double> busy_pct;                 // the busiest engine; empty on a client's first reading
    uint64_t memory_bytes = 0;
    size_t clients = 0;                             // distinct DRM clients (fds sharing one counted once)
};

// Busy shares from the deltas between successive readings, per DRM client: a
// client seen through several fds (dup, fork, passing) is counted once, keyed by
// (drm-pdev, drm-client-id); without a client id each fd counts on its own.
class DrmUsageTracker {
public:
    std::map<pid_t, DrmProcessUsage> update(const std::vector<DrmReading>& readings, int64_t t_ns);

private:
    struct Prev {
        int64_t t_ns = 0;
        std::map<std::string, DrmEngineCounter> engines;
    };
    std::map<std::string, Prev> prev_;  // by client key
};

}  // namespace seatmark::orchestrator
