#pragma once
// Bottleneck attribution of every measured step (core/attribution.h) from what the report read:
// the samples in the step's windows (GPU engine, memory, encoder/decoder, host CPU per core and
// run queue, host memory, per-session CPU) and its frames' CPU/GPU/interval split.
#include <vector>

#include "report/analysis.h"
#include "report/sample_scan.h"

namespace seatmark::report {

// The metrics attribution reads beyond those step_use.h reads (for read_samples()).
bool attribution_metric(std::string_view metric);

// Fills StepAnalysis::attribution of each measured step, and the run's headline step: the
// first step above max density (where something ran out) or, when every step passed, the last.
void attribute_steps(RunAnalysis& a, const SampleSet& samples);

}  // namespace seatmark::report
