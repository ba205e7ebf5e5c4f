#pragma once
// The report's HTML sections for the capacity planner: what ran out (bottleneck attribution per
// step), the capacity model with measured-vs-fit charts (inline SVG), cost per user-hour and
// sizing guidance. html.cpp places them.
#include <string>

#include "report/analysis.h"
#include "report/capacity_model.h"

namespace seatmark::report {

std::string bottleneck_html(const RunAnalysis& a);
// An adaptive search's probes with their evidence and the machine time beside a linear ramp
// ("" for a linear plan).
std::string search_html(const RunAnalysis& a);
// The same in one sentence, for Markdown and the console.
std::string search_text(const RunAnalysis& a);
std::string capacity_html(const RunAnalysis& a, const CapacityAnalysis& c);

// The charts alone: delivered FPS against the USL fit; worst p95 against its fit, the SLA bound
// and the predicted crossing with its bootstrap interval.
std::string usl_chart(const CapacityAnalysis& c);
std::string p95_fit_chart(const CapacityAnalysis& c);

}  // namespace seatmark::report
