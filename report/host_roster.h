#pragma once
// The hosts that took part in a joined run (sessions from other hosts joined the controller's
// `seatmark run --accept`), each with how its figures were taken: its agent's samples, or "not
// judged: no agent on HOST since ..." where it had none. The controller's own samples are its
// own: they never stand for a joined host's, in the host table or in attribution.
#include <string>
#include <vector>

#include "report/analysis.h"
#include "report/sample_scan.h"
#include "store/records.h"

namespace seatmark::report {

// A joined run: some host row is a joined host's (store::role_joined).
bool joined_run(const std::vector<store::HostRow>& hosts);

// In a joined run, the run-wide host series (SampleSet::get(metric), host_wide) only from a host
// that ran sessions: the controller's, which ran none, no longer stands for them.
void keep_session_hosts_only(SampleSet& samples, const std::vector<store::SessionRow>& sessions);

// The host whose capacity (CPUs, memory) the run-wide figures are judged against: the run's own
// host; in a joined run the one host every session ran on, else none (nullptr).
const store::HostRow* measured_host(const RunAnalysis& a);

// Every host of a joined run, the controller first (empty for other runs), and each step's
// host_use: every joined host that ran sessions in it, its own figures or why it has none.
void build_host_roster(RunAnalysis& a, const SampleSet& samples, const std::vector<store::EventRow>& events);

}  // namespace seatmark::report
