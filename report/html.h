#pragma once
// index.html: one self-contained page (inline CSS and SVG, no script, no network) that a
// person reads at a glance: the headline, warnings, charts, the per-step table, sessions,
// failures and the definitions of every figure.
#include <string>

#include "report/analysis.h"

namespace seatmark::report {

std::string render_html(const RunAnalysis& a);

// "2024-11-30 05:45:12 UTC" for a wall-clock time in ns since the Unix epoch.
std::string utc_text(int64_t unix_ns);

}  // namespace seatmark::report
