#pragma once
// Repeat-window confidence intervals: a 95 % Student-t interval of the mean of a few values
// (one per measurement window), mean +- t(0.975, n-1) * s / sqrt(n).
#include <span>

#include "report/analysis.h"

namespace seatmark::report {

// t(0.975, df): exact table values for df 1..30, then 1.96 + 2.5/df (within 0.002 of the table).
double t_quantile_975(int df);

// n < 2 gives an Interval with n set and available() false.
Interval t_interval_95(std::span<const double> values);

}  // namespace seatmark::report
