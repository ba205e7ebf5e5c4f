#pragma once
// summary.md: the headline, warnings, the per-step table and the definitions, for a ticket,
// a wiki page or a pull request.
#include <string>

#include "report/analysis.h"

namespace seatmark::report {

std::string render_markdown(const RunAnalysis& a);

}  // namespace seatmark::report
