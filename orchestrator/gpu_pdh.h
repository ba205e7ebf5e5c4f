#pragma once
// GPU use per process on Windows from the performance counters Task Manager reads (WDDM):
//   \GPU Engine(pid_P_luid_0xHI_0xLO_phys_N_eng_E_engtype_T)\Utilization Percentage
//   \GPU Process Memory(pid_P_luid_0xHI_0xLO_phys_N)\Dedicated Usage, \Shared Usage   (bytes)
// This is how per-process GPU use is attributed where NVML cannot (under WDDM, NVML reports no
// per-process memory). The rules, as Task Manager applies them: a process's use of one engine is
// the sum of its instances on that engine (one per context); its GPU share is its busiest
// engine's use; an adapter's utilisation is its busiest engine's total. Engine totals above 100
// (counters sampled across a reset) are capped at 100 and flagged.
//
// This file is the parsing and the attribution, platform-free, tested on counter data in
// typeperf's CSV form (tests/orchestrator/test_gpu_pdh.cpp, and under Wine). That fixture is
// written by hand after typeperf's format, not recorded on a real host (docs/windows.md). orchestrator/gpu_pdh_windows.cpp reads
// the live counters through PDH; orchestrator/gpu_pdh_posix.cpp says PDH is Windows-only.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/gpu_sampler.h"

namespace seatmark::orchestrator::pdh {

struct CounterValue {
    std::string instance;  // the part in parentheses
    double value = 0;
};

// One collection of the three counter sets (wildcard instances).
struct GpuCounters {
    std::vector<CounterValue> engine_utilization;  // GPU Engine / Utilization Percentage
    std::vector<CounterValue> dedicated_bytes;     // GPU Process Memory / Dedicated Usage
    std::vector<CounterValue> shared_bytes;        // GPU Process Memory / Shared Usage
};

struct EngineInstance {
    uint32_t pid = 0;
    std::string adapter;  // "luid_0x00000000_0x0000D1B7_phys_0": one physical adapter
    uint32_t engine = 0;
    std::string engine_type;  // "3D", "Copy", "VideoDecode", "VideoEncode", "Compute_0", ...
};
struct MemoryInstance {
    uint32_t pid = 0;
    std::string adapter;
};

// nullopt for a name not in that form (the parser is strict: a field missing, a number that
// does not parse, text left over).
std::optional<EngineInstance> parse_engine_instance(std::string_view name);
std::optional<MemoryInstance> parse_memory_instance(std::string_view name);

struct ProcessUse {
    uint32_t pid = 0;
    double share_pct = 0;                        // busiest engine
    std::string busiest_engine;                  // its engine type
    std::map<std::string, double> by_type_pct;   // busiest engine of each type ("3D", "VideoEncode", ...)
    std::optional<double> dedicated_bytes, shared_bytes;
};
struct AdapterUse {
    std::string adapter;
    double util_pct = 0;  // busiest engine's total over processes
    std::optional<double> dedicated_bytes;  // sum over processes
};
struct Attribution {
    std::vector<ProcessUse> processes;  // by pid
    std::vector<AdapterUse> adapters;   // by adapter name
    std::vector<std::string> problems;  // instances that did not parse, capped totals
};

Attribution attribute(const GpuCounters& c);

// The snapshot a sampler hands on: source "pdh", processes matched to sessions by pid.
GpuSnapshot to_snapshot(const Attribution& a, int64_t t_ns, const std::vector<GpuClient>& clients);

// Reads counters recorded on a Windows host with
//   typeperf "\GPU Engine(*)\Utilization Percentage" "\GPU Process Memory(*)\Dedicated Usage"
//            "\GPU Process Memory(*)\Shared Usage" -sc 1 -f CSV -o gpu.csv
// (PDH-CSV 4.0: a header row of counter paths, then one row per sample; the last row is used).
// Throws InputError naming the line for a file not in that form.
GpuCounters read_typeperf_csv(const std::string& text, const std::string& name);

// The live sampler (Windows: PDH; elsewhere null with the reason).
struct PdhOpen {
    std::unique_ptr<GpuSampler> sampler;
    BackendStatus status;  // name "pdh"
};
PdhOpen open_pdh();

}  // namespace seatmark::orchestrator::pdh
