#pragma once
// Repeat-window confidence intervals: a 95 % Student-t interval of the mean of a few values
// (one per measurement window), mean +- t(0.975, n-1) * s / sqrt(n).
#include <span>
#include <string_view>

#include "report/analysis.h"

namespace seatmark::report {

// t(0.975, df): exact table values for df 1..30, then 1.96 + 2.5/df (within 0.002 of the table).
double t_quantile_975(int df);

// n < 2 gives an Interval with n set and available() false.
Interval t_interval_95(std::span<const double> values);

// Whether two runs' figures differ by more than their own spread: `within` when the 95 %
// intervals over each run's windows overlap (the difference is no larger than what the runs
// vary by window to window), `beyond` when they do not, `unknown` when either has fewer than two
// windows (one window has no spread of its own). `seatmark compare` says it for every figure.
enum class Spread { within, beyond, unknown };
Spread spread_of(const Interval& a, const Interval& b);
std::string_view to_string(Spread s);  // "within", "beyond", "unknown"

}  // namespace seatmark::report
