#pragma once
// `seatmark check`: a run against reference values with tolerances (report/references.h).
// Each (entry, metric) that applies to the run's host is one check; an entry for the exact
// host replaces a "*" entry for the same profile, step and metric (as ReFrame prefers the
// most specific system). A run that did not finish fails when require_finished holds.
#include <cmath>
#include <string>
#include <vector>

#include "report/analysis.h"
#include "report/references.h"

namespace seatmark::report {

struct CheckResult {
    std::string host, profile, step, metric, unit;  // step: "6" or "max (6)"
    double measured = NAN, reference = NAN, low = NAN, high = NAN;
    double lower = 0, upper = 0;  // the fractions as given
    bool pass = false;
    std::string message;  // why it failed, or a note
    int line = 0;         // where the reference is in the file
};

struct CheckReport {
    std::string db_path, references_path, host;
    std::vector<CheckResult> results;
    size_t failures() const;
    bool passed() const { return !results.empty() && failures() == 0; }
};

CheckReport run_check(const RunAnalysis& a, const References& refs);

std::string check_table(const CheckReport& r);  // for the terminal, with a summary line
std::string junit_xml(const CheckReport& r);    // JUnit XML: testsuites/testsuite/testcase/failure

}  // namespace seatmark::report
