#pragma once
// The sentences every renderer shares: the headline (max density against the SLA, host,
// devices, whether the run finished), the warnings a reader must not miss, and the
// definitions of every metric (docs/design.md "Metrics, defined once").
#include <string>
#include <vector>

#include "report/analysis.h"

namespace seatmark::report {

struct Headline {
    std::string density;       // "6 sessions" / "none: no step passed"
    std::string density_rule;  // what max density means
    std::string sla;           // the default SLA, then per-profile overrides
    std::string knee;          // the VSImax-style knee, or why there is none
    std::string host;          // host name, CPU, memory, OS
    std::vector<std::string> devices;  // one line per device the sessions really used
    std::string status;        // "finished", "did not finish (crashed)", ...
    std::string measured;      // "5 steps of 1..8 sessions, 8 s windows x 1, 1.2M frames, 2 min 10 s"
    std::vector<std::string> warnings;  // loud: unfinished run, no passing step, software renderer, ...
};

Headline headline(const RunAnalysis& a);

struct Definition {
    std::string name, text;
};
const std::vector<Definition>& definitions();

// The step's verdict in words: "pass" or "fail: <first reason>".
std::string verdict_text(const StepAnalysis& s);

}  // namespace seatmark::report
