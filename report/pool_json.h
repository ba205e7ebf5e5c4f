#pragma once
// report.json's "pool": every host's steps and figures, the pool's, E(H); null for a single host.
#include <nlohmann/json.hpp>

#include "report/analysis.h"

namespace seatmark::report {

nlohmann::json pool_json(const RunAnalysis& a);

}  // namespace seatmark::report
