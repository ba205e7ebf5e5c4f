#pragma once
// Machine-readable outputs: steps.csv (one row per step), sessions.csv (one row per session
// per step it was judged in) and report.json (everything, NaN as null).
#include <nlohmann/json.hpp>
#include <string>

#include "report/analysis.h"

namespace seatmark::report {

std::string steps_csv(const RunAnalysis& a);
std::string sessions_csv(const RunAnalysis& a);
nlohmann::json report_json(const RunAnalysis& a);

}  // namespace seatmark::report
