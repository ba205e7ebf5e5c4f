#pragma once
// The run's sampler: the host (/proc: CPU per core, memory, load), every running session's
// process (CPU share, RSS) and GPU sharing (gpu_telemetry.h), once a second. It writes the
// per-session figures into the session table and returns the store rows; it keeps the latest
// host and GPU figures for the live projection.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/gpu_telemetry.h"
#include "orchestrator/linux_proc.h"
#include "orchestrator/session_table.h"
#include "store/records.h"

namespace seatmark::orchestrator {

class HostSampler {
public:
    explicit HostSampler(std::unique_ptr<GpuTelemetry> gpu);

    struct Sample {
        std::vector<store::SampleRow> rows;
        std::vector<std::string> errors;  // sampler errors, for events
    };
    Sample sample(int64_t t_ns, SessionTable& sessions);

    double host_cpu_pct() const { return host_cpu_pct_; }  // NaN before the second sample
    const GpuSnapshot& gpu_snapshot() const { return last_gpu_; }
    const GpuTelemetry* gpu() const { return gpu_.get(); }

private:
    std::unique_ptr<GpuTelemetry> gpu_;
    CpuTimes cpu_prev_;
    ProcessUsageReader proc_usage_;  // sessions' /proc/PID/stat, kept open between samples
    double host_cpu_pct_ = NAN;
    GpuSnapshot last_gpu_;
};

}  // namespace seatmark::orchestrator
