#pragma once
// The service level and knee margin of a run, from the plan stored in its database
// (runs.plan_text), re-parsed with the orchestrator's own parser so the report judges by
// exactly the plan the run was judged by.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/plan.h"
#include "core/sla.h"

namespace seatmark::report {

struct StoredPlan {
    std::string name;
    std::string note;  // why the plan could only be read in part ("" when it parsed)
    Sla default_sla;
    std::map<std::string, Sla> sla;  // per profile
    double knee_margin_pct = 25;
    std::vector<uint32_t> steps;
    uint32_t repeats = 1;
    core::SearchPlan search;             // adaptive search, when the plan asked for one
    std::optional<double> host_per_hour; // [cost]
    std::string currency;
};

// Parses `text` with core::parse_plan. When that fails here (a profile file that only
// exists on the host that ran it, say), the SLA tables and knee margin are read from the TOML
// directly and `note` says so; the defaults stand when even that fails. Never throws.
StoredPlan read_stored_plan(const std::string& text, const std::string& db_path);

}  // namespace seatmark::report
