#pragma once
// GPU sharing telemetry: the interface every backend implements, what one
// sample holds, and the factory that picks the backend that works on this
// host (docs/design.md "GPU share": NVML per-process samples, or DRM engine time,
// or process CPU time on a software renderer; always labelled by source).
//
// Backends, tried in this order:
//   nvml      libnvidia-ml.so.1 through dlopen (gpu_nvml.h); SEATMARK_NVML_LIBRARY names
//             another file to load instead (the tests' fake library goes through here)
//   drm       /proc/PID/fdinfo of DRM file descriptors, amdgpu/i915/xe (gpu_drm_fdinfo.h)
//   software  process CPU time per session, for sessions on a CPU renderer (gpu_software.h);
//             always present, and never claims a GPU
// No backend changes any setting of a card: they only read.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seatmark::orchestrator {

// What a session renders on, as its HELLO said: the software backend measures only
// sessions on a CPU renderer.
enum class Renderer { unknown, gpu, software };

// A process whose GPU use is wanted: a session (session_id >= 0), its pid, its renderer.
struct GpuClient {
    int session_id = -1;
    pid_t pid = 0;
    Renderer renderer = Renderer::unknown;
    // The process's CPU time (utime + stime) when the caller has just read it from /proc, so the
    // software sampler need not read it again; empty: the sampler reads it.
    std::optional<double> cpu_seconds;
};

// Device-wide figures; a field the backend cannot read stays empty.
struct GpuDeviceSample {
    uint32_t index = 0;
    std::string name;                                     // "NVIDIA H100 80GB HBM3", "amdgpu 0000:03:00.0"
    std::optional<double> util_pct, mem_util_pct;         // busy share of the last sample period
    std::optional<double> mem_used_bytes, mem_total_bytes;
    std::optional<double> enc_pct, dec_pct;               // video encoder / decoder utilization
    std::optional<double> power_w, temp_c;
    std::optional<double> sm_clock_mhz, mem_clock_mhz;
    std::optional<double> throttle_reasons;               // NVML clock event reason bits (0: none)
};

// One process's use, attributed to a session by pid (session_id -1: not a session).
struct GpuProcessSample {
    int session_id = -1;
    pid_t pid = 0;
    std::string source;                 // "nvml", "drm", "software"
    std::optional<double> share_pct;    // its share of the device (SM / busiest engine / CPU time)
    std::optional<double> mem_bytes;    // device memory it holds
    std::optional<double> mem_util_pct, enc_pct, dec_pct;  // NVML only
};

struct GpuSnapshot {
    int64_t t_ns = 0;
    std::string source;                       // backend of the device figures; "software" when none
    std::vector<GpuDeviceSample> devices;     // empty without a GPU backend: no GPU is claimed
    std::vector<GpuProcessSample> processes;  // sessions first-class; others with session_id -1
    std::vector<std::string> errors;          // problems new since the last sample, for 'sampler-error' events

    const GpuProcessSample* session(int session_id) const;
};

class GpuSampler {
public:
    virtual ~GpuSampler() = default;
    virtual std::string_view source() const = 0;  // "nvml", "drm", "software"
    // One sample now. Values the backend judged invalid (over 100 %, stale pids, stale
    // samples) are left out; processes not among `clients` may be listed with session_id -1.
    virtual GpuSnapshot sample(int64_t t_ns, const std::vector<GpuClient>& clients) = 0;
};

// Whether a backend works on this host and, if not, why (for `seatmark probe` and the run's events).
struct BackendStatus {
    std::string name;                  // "nvml", "drm", "software"
    bool available = false;
    std::string detail;                // what it measures here, or why it does not work
    std::vector<std::string> devices;  // devices it sees, one line each
};

struct GpuOptions {
    std::string nvml_library;          // "" : $SEATMARK_NVML_LIBRARY, else libnvidia-ml.so.1
    std::string dev_dri = "/dev/dri";  // where DRM nodes are looked for
    std::string proc_root = "/proc";
    std::string sys_root = "/sys";
};

struct GpuBackends {
    std::unique_ptr<GpuSampler> hardware;  // nvml or drm; null when neither works here
    std::vector<BackendStatus> status;     // nvml, drm, software: each tried, in that order
};

GpuBackends open_gpu_backends(const GpuOptions& opts = {});

}  // namespace seatmark::orchestrator
