#pragma once
// `seatmark compare A.db B.db`: two runs side by side, step by step (matched by session
// count), with the difference B - A of each main metric, absolute and in %, and the max
// density of each.
#include <nlohmann/json.hpp>
#include <string>

#include "report/analysis.h"

namespace seatmark::report {

std::string compare_text(const RunAnalysis& a, const RunAnalysis& b);
nlohmann::json compare_json(const RunAnalysis& a, const RunAnalysis& b);

}  // namespace seatmark::report
