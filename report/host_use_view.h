#pragma once
// The report's per-host table of host-wide figures (StepAnalysis::host_use): CPU, GPU and
// memory of each host in each step's windows, when several hosts recorded them (a pool, a
// joined run with agents). One host's are in the step table itself. And the hosts of a joined run.
#include <functional>
#include <string>
#include <string_view>

#include "report/analysis.h"

namespace seatmark::report {

bool has_host_use(const RunAnalysis& a);  // some step has figures of several hosts
std::string host_use_html(const RunAnalysis& a);  // "" when !has_host_use
std::string host_use_markdown(const RunAnalysis& a, const std::function<std::string(std::string_view)>& text);
// A joined run's hosts (RunAnalysis::roster) with their agent status; "" for other runs.
std::string host_roster_html(const RunAnalysis& a);
std::string host_roster_markdown(const RunAnalysis& a, const std::function<std::string(std::string_view)>& text);

}  // namespace seatmark::report
