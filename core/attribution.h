#pragma once
// Bottleneck attribution of one step: which resource was closest to saturation, how close, and
// whether frames were CPU-bound or GPU-bound (docs/design.md "Bottleneck attribution"). Pure
// rules: the report gathers the figures from the samples and frames and calls attribute().
//
// Candidates for the binding resource, each a busy share 0..100 % of a hard ceiling:
//   GPU 3D/compute engine (NVML/DRM utilisation), GPU memory (used / total, peak), GPU memory
//   bandwidth (NVML memory-controller busy), video encoder and decoder (NVML), host CPU (all
//   cores, mean), CPU run queue (runnable tasks per CPU, 100 % = one per CPU), host memory.
// Context, never the binding resource: the busiest core (the scheduler moves work between cores,
// so one hot core binds only when the overall figure is high too) and per-session CPU (% of one
// core: a session has several threads, so it has no fixed ceiling; it says what one user costs).
//
// On a software renderer the CPU draws the frames: GPU figures are not judged (there is no GPU
// engine to read, and its "GPU time" is CPU time), and the CPU binds by rule: the busier of the
// host CPU and the run queue is named, whatever its figure.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seatmark::core {

struct StepResources {
    uint32_t sessions = 0;
    bool software_renderer = false;  // a judged session reported a CPU renderer
    std::string gpu_source;          // "nvml", "drm", ... ; "" when no GPU sampler ran
    std::optional<double> gpu_engine_pct, gpu_mem_pct, gpu_mem_bw_pct, enc_pct, dec_pct;
    std::optional<double> host_cpu_pct;        // mean over the step's windows
    std::optional<double> busiest_core_pct;    // highest per-core mean
    int busiest_core = -1;
    std::optional<double> run_queue;           // mean runnable tasks (running + waiting for a CPU)
    uint32_t cpu_count = 0;                    // logical CPUs of the host (0: unknown)
    // CPUs the run could really use when fewer than cpu_count (a cpuset or CFS quota; 0: all of
    // cpu_count), and where that came from; host_cpu_pct is then a share of it.
    double cpu_capacity = 0;
    std::string cpu_capacity_note;
    std::optional<double> host_mem_pct;        // peak used / total
    std::optional<double> session_cpu_mean_pct, session_cpu_max_pct;  // % of one core
    // Frame-time decomposition: medians over sessions of their median CPU time, GPU time and
    // frame interval (ms). gpu_ms empty without timestamps.
    std::optional<double> cpu_ms, gpu_ms, interval_ms;
};

struct ResourceUse {
    std::string name;     // "GPU 3D engine", "host CPU", ...
    double busy_pct = 0;  // share of its ceiling
    std::string figure;   // "97 % busy", "18.2 runnable on 16 CPUs"
    std::string source;   // sampler: "nvml", "proc", ...
};

struct NotJudged {
    std::string name, why;
};

enum class FrameBound { unknown, cpu, gpu, waiting };

struct Attribution {
    uint32_t sessions = 0;
    std::vector<ResourceUse> resources;  // judged candidates, busiest first
    std::optional<size_t> binding;       // index into resources
    std::vector<NotJudged> not_judged;   // what could not be judged, and why
    std::vector<std::string> context;    // busiest core, per-session CPU, in words
    FrameBound frames = FrameBound::unknown;
    std::string frames_text;             // "GPU-bound: GPU time 9.8 ms, CPU time 1.2 ms of a 16.7 ms interval"
    std::string headline;                // "at 24 sessions the binding resource was ..."
};

// Shares of a frame interval above which a side is said to bind the frames: when neither CPU
// nor GPU time fills half the interval, frames spent most of it waiting (a frame cap, or a
// queue for a device shared with other sessions).
inline constexpr double frame_bound_share = 0.5;

Attribution attribute(const StepResources& r);

// The CPUs the run's CPU figures are judged against: cpu_capacity where it is below cpu_count,
// else cpu_count (0: unknown). The one rule for the run queue's and "room for" denominators.
double usable_cpus(const StepResources& r);

const char* to_string(FrameBound b);

}  // namespace seatmark::core
