#pragma once
// NVIDIA GPUs through NVML, loaded at run time with dlopen: the build needs no
// NVIDIA package, and a host without the driver simply has no NVML backend.
//
// The library opened is $SEATMARK_NVML_LIBRARY when set (a path or a soname),
// else libnvidia-ml.so.1, the name the NVIDIA driver installs. Tests point the
// variable at a fake library (tests/fakes/fake_nvml.cpp) so the whole loader
// path runs for real.
//
// Per device: GPU and memory utilization, memory used/total, encoder and decoder
// utilization, power, temperature, SM and memory clocks, clock event (throttle)
// reasons. Per process: nvmlDeviceGetProcessUtilization (SM, memory, encoder,
// decoder), called with the last-seen timestamp of the previous call so each call
// returns only new samples, and memory from the graphics and compute
// running-process lists. Samples with a value over 100, samples at or before the
// last-seen timestamp (NVML returns such stale entries) and pids that no longer
// exist are discarded. Only query functions are called: no setting of the card changes.
//
// Caveat: NVML reports pids of the host's pid namespace; an orchestrator inside a
// container with its own pid namespace sees device figures but no session shares.
#include <memory>
#include <string>

#include "orchestrator/gpu_sampler.h"

namespace seatmark::orchestrator {

constexpr const char* nvml_library_env = "SEATMARK_NVML_LIBRARY";

// The library `open_nvml` loads: `name` if not empty, else $SEATMARK_NVML_LIBRARY, else
// libnvidia-ml.so.1 (nvml.dll from System32 on Windows: common/shared_library.h).
std::string nvml_library_name(const std::string& name = "");

struct NvmlOpen {
    std::unique_ptr<GpuSampler> sampler;  // null when NVML does not work here
    BackendStatus status;                 // name "nvml"; the reason when unavailable
};

// Loads and initialises NVML. Reasons when it does not work: "library missing: <dlerror>",
// "not NVML: <library> lacks <symbol>", "no permission: ...", "NVIDIA driver not loaded: ...",
// "nvmlInit_v2 failed: ...", "no NVIDIA GPU: ...".
NvmlOpen open_nvml(const std::string& library = "", const std::string& proc_root = "/proc");

}  // namespace seatmark::orchestrator
