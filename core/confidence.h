#pragma once
// A 95 % Student-t interval of a mean over a few values (one per measurement window):
// mean +- t(0.975, n-1) * s / sqrt(n). The report's repeat-window intervals and the adaptive
// search's "is the probe settled" rule (core/density_search.h) both use this one.
#include <span>

namespace seatmark::core {

struct MeanInterval {
    int n = 0;
    double mean = 0, lo = 0, hi = 0;  // lo == hi == mean for n < 2
};

// t(0.975, df): exact table values for df 1..30, then 1.96 + 2.5/df (within 0.002 of the table).
double t_quantile_975(int df);

MeanInterval t_interval_95(std::span<const double> values);

}  // namespace seatmark::core
