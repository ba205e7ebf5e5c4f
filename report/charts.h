#pragma once
// The report's charts as inline SVG (report/svg.h), each readable at a glance:
//   p95_chart       p95 frame interval vs sessions, the SLA line, the knee, max density shaded
//   fps_chart       per-step distribution of per-session FPS (box + every session as a dot)
//   heatmap_chart   sessions x time, colour = p95 frame interval per time bin, failures marked
//   timeline_chart  host CPU (and GPU where sampled) over time, steps as bands, failures marked
#include <string>

#include "report/analysis.h"

namespace seatmark::report {

std::string p95_chart(const RunAnalysis& a);
std::string fps_chart(const RunAnalysis& a);
std::string heatmap_chart(const RunAnalysis& a);
std::string timeline_chart(const RunAnalysis& a);

// The heat map's colour for a p95 frame interval, against the SLA's p95 bound: 11 steps from
// dark green (far below) through yellow (at the bound) to dark red (3x the bound and above).
std::string heat_colour(double p95_ms, double sla_ms);

}  // namespace seatmark::report
