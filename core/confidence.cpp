#include "core/confidence.h"

#include <cmath>

namespace seatmark::core {

double t_quantile_975(int df) {
    static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                       2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                       2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < 1) return NAN;
    if (df <= 30) return table[df - 1];
    return 1.96 + 2.5 / df;
}

MeanInterval t_interval_95(std::span<const double> values) {
    MeanInterval r;
    r.n = static_cast<int>(values.size());
    if (values.empty()) return r;
    double sum = 0;
    for (double v : values) sum += v;
    r.mean = sum / double(values.size());
    r.lo = r.hi = r.mean;
    if (values.size() < 2) return r;
    double ss = 0;
    for (double v : values) ss += (v - r.mean) * (v - r.mean);
    const double sd = std::sqrt(ss / double(values.size() - 1));
    const double half = t_quantile_975(r.n - 1) * sd / std::sqrt(double(values.size()));
    r.lo = r.mean - half;
    r.hi = r.mean + half;
    return r;
}

}  // namespace seatmark::core
