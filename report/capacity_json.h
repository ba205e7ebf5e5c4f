#pragma once
// report.json's capacity-planner parts: a step's bottleneck attribution, and the run's capacity
// model, cost per user-hour and sizing guidance (report/capacity_model.h).
#include <nlohmann/json.hpp>

#include "core/attribution.h"
#include "report/capacity_model.h"

namespace seatmark::report {

nlohmann::json attribution_json(const core::Attribution& a);
nlohmann::json capacity_json(const RunAnalysis& a, const CapacityAnalysis& c);

}  // namespace seatmark::report
