#pragma once
// The pool section's charts as inline SVG (report/svg.h):
//   host_p95_chart  every host's p95 frame interval against its own sessions, one line per host
//   scaling_chart   hosts vs the pool's passing sessions, E(H) written at each point, ideal line
#include <string>

#include "report/analysis.h"

namespace seatmark::report {

std::string host_colour(size_t host_index);  // the same colour for a host on every chart
std::string host_p95_chart(const RunAnalysis& a);
std::string scaling_chart(const RunAnalysis& a);

}  // namespace seatmark::report
