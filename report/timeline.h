#pragma once
// The run's time lines for the charts: the per-session heat map of frame interval, the host
// series, and the marks of failures and run-wide trouble.
#include <vector>

#include "store/records.h"
#include "report/analysis.h"
#include "report/sample_scan.h"
#include "report/step_judge.h"

namespace seatmark::report {

// Sets a.t0_ns / a.t1_ns (run start .. the last thing recorded) from steps, sessions, frames
// and samples; call before the others.
void set_time_span(RunAnalysis& a, const FrameMap& frames, const SampleSet& samples);

// One heat-map row per session: p95 frame interval per time bin (`bins` bins over the run).
void build_heatmap(RunAnalysis& a, const FrameMap& frames, int bins, int threads);

// Host CPU (and GPU utilisation where sampled) as chart series.
void build_host_series(RunAnalysis& a, const SampleSet& samples);

// Failed sessions, and run-wide trouble among the events (run-abort, connection-rejected,
// run-wide *-error), by time.
void build_marks(RunAnalysis& a, const std::vector<store::EventRow>& events);

}  // namespace seatmark::report
