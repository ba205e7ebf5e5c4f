#pragma once
// A pool run's verdicts recomputed as the pool judged them live: each host's steps from its own
// sessions' frames over its own windows (its stored verdict rows' spans, converted into the run's
// time base by the merge), with core's step rules; then each step's pool verdict from the hosts'
// with core::pool_verdict (a host lost by then fails it). Fills RunAnalysis::pool
// (report/pool_analysis.h) and replaces each step's recomputed verdict with the pool's.
#include <string>

#include "report/analysis.h"
#include "report/step_judge.h"
#include "store/store_reader.h"

namespace seatmark::report {

// The hosts a run's per-host verdicts are made of: an MPI pool's ranks; in a joined run the
// hosts its sessions joined from (the controller's own row ran none). More than one: the
// report's pool section, check's host references and the monitor's host groups read them.
std::vector<store::HostRow> pool_hosts(const std::vector<store::HostRow>& hosts,
                                       const std::vector<store::SessionRow>& sessions);

// Does nothing for a single-host run (a.pool stays empty). `in.sessions` is every session.
// A joined run's steps keep the verdict its controller judged over every session (it stored
// that one); an MPI pool's become the pool's (every host passes).
void judge_pool(RunAnalysis& a, const store::StoreReader& reader, const JudgeInputs& in);

// What the pool section says beside the verdicts: per-host max density, first failure, fairness,
// window skew, E(H). Called after max density is known (analysis.cpp).
void summarize_pool(RunAnalysis& a);

}  // namespace seatmark::report
