#pragma once
// The run's sampler: the host and every running session's process (host_figures.h: CPU per
// core, memory, load; CPU share, RSS) and GPU sharing (gpu_telemetry.h), once a second. It writes the
// per-session figures into the session table and returns the store rows; it keeps the latest
// host and GPU figures for the live projection.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/gpu_telemetry.h"
#include "orchestrator/host_figures.h"
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

    double host_cpu_pct() const { return host_.host_cpu_pct(); }  // NaN before the first sample
    const GpuSnapshot& gpu_snapshot() const { return last_gpu_; }
    const GpuTelemetry* gpu() const { return gpu_.get(); }
    // A step begins at t_ns: the GPU memory history before it is no longer judged.
    void step_begins(int64_t t_ns) {
        if (gpu_) gpu_->forget_memory_before(t_ns);
    }

private:
    std::unique_ptr<GpuTelemetry> gpu_;
    HostFigures host_;
    GpuSnapshot last_gpu_;
};

}  // namespace seatmark::orchestrator
