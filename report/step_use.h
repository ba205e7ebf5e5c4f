#pragma once
// What the samplers saw during each step's measurement windows: host CPU, memory and GPU,
// and per session CPU, resident memory and GPU share, each with the sampler it came from.
#include <string_view>
#include <vector>

#include "core/gpu_memory_check.h"
#include "report/analysis.h"
#include "report/sample_scan.h"

namespace seatmark::report {

// The metrics a report reads (for read_samples()).
bool wanted_metric(std::string_view metric);

// GPU memory points as the orchestrator's GPU telemetry keeps them, from gpu_mem_* samples
// (one device) or gpuN_mem_* (several).
std::vector<core::GpuMemoryPoint> gpu_memory_points(const SampleSet& samples);

// Fills each measured step's host and per-session use from the samples in its windows.
void attach_use(std::vector<StepAnalysis>& steps, const SampleSet& samples);

}  // namespace seatmark::report
