#include "report/confidence.h"

#include "core/confidence.h"

namespace seatmark::report {

double t_quantile_975(int df) { return core::t_quantile_975(df); }

Interval t_interval_95(std::span<const double> values) {
    const core::MeanInterval m = core::t_interval_95(values);
    Interval r;
    r.n = m.n;
    r.mean = m.mean, r.lo = m.lo, r.hi = m.hi;
    return r;
}

}  // namespace seatmark::report
