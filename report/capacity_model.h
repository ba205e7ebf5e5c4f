#pragma once
// What a capacity planner reads beside max density: the capacity model (core/capacity.h) fitted
// to the run's windows, cost per user-hour at max density (plan [cost]), and public sizing
// guidance for the host's vCPU count (Microsoft's multi-session tiers).
#include <optional>
#include <string>
#include <vector>

#include "core/capacity.h"
#include "report/analysis.h"

namespace seatmark::report {

struct CostLine {
    std::string scope;                // "per host" / "pool of 2 hosts" / a host name
    uint32_t users = 0;               // sessions at max density
    double per_hour = 0;              // what the scope costs per hour
    std::optional<double> per_user_hour;  // nullopt: no passing step
};

struct SizingTier {
    std::string name;       // "light", "medium", "heavy", "power"
    int users_per_vcpu = 0;
    int users = 0;          // for this host's vCPUs
};

struct CapacityAnalysis {
    // Throughput (USL on delivered FPS) and experience (worst-session p95 vs sessions): one point per window.
    std::vector<core::CapacityPoint> fps_points, p95_points;
    core::UslFit usl;
    core::CrossingPrediction crossing;
    bool p95_relative = false;  // profiles with different bounds: the figure is % of each session's own bound
    std::string p95_label;      // what the p95 points are
    // Cost (plan [cost]); empty without one.
    std::string currency;
    std::vector<CostLine> cost;
    std::string cost_note;
    // Sizing guidance for the first host's vCPUs.
    int vcpus = 0;
    std::vector<SizingTier> tiers;
    std::string sizing_note;  // outside 4-24 vCPUs, or no host row
};

// Cost from RunAnalysis::host_per_hour / currency (the plan's [cost]; none: no cost lines).
CapacityAnalysis model_capacity(const RunAnalysis& a);

// One sentence each, for every renderer.
std::string usl_text(const CapacityAnalysis& c);
std::string crossing_text(const CapacityAnalysis& c);
// Why the fit's predicted max density and the measured one differ by more than one session
// (e.g. a step failed on FPS or a crash, which the p95 fit does not follow); "" when they agree
// or nothing was predicted.
std::string density_agreement(const RunAnalysis& a, const CapacityAnalysis& c);

}  // namespace seatmark::report
