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

Spread spread_of(const Interval& a, const Interval& b) {
    if (!a.available() || !b.available()) return Spread::unknown;
    return a.lo <= b.hi && b.lo <= a.hi ? Spread::within : Spread::beyond;
}

std::string_view to_string(Spread s) {
    switch (s) {
        case Spread::within: return "within";
        case Spread::beyond: return "beyond";
        default: return "unknown";
    }
}

}  // namespace seatmark::report
