#include "core/capacity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <cstdio>
#include <set>
#include <string>

#include <Eigen/Dense>
#include <unsupported/Eigen/NonLinearOptimization>

namespace seatmark::core {

namespace {

size_t distinct_sessions(std::span<const CapacityPoint> pts) {
    std::set<double> n;
    for (const auto& p : pts) n.insert(p.sessions);
    return n.size();
}

double r_squared(std::span<const CapacityPoint> pts, double sse) {
    double mean = 0;
    for (const auto& p : pts) mean += p.value;
    mean /= double(pts.size());
    double sst = 0;
    for (const auto& p : pts) sst += (p.value - mean) * (p.value - mean);
    return sst > 0 ? 1 - sse / sst : 1.0;
}

// USL residuals X(N) - measured, over the free parameters (lambda always; sigma and kappa
// where `free_s` / `free_k`, else held at 0), with the analytic Jacobian.
struct UslFunctor {
    using Scalar = double;
    enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
    using InputType = Eigen::VectorXd;
    using ValueType = Eigen::VectorXd;
    using JacobianType = Eigen::MatrixXd;

    std::span<const CapacityPoint> pts;
    bool free_s = true, free_k = true;

    int inputs() const { return 1 + int(free_s) + int(free_k); }
    int values() const { return int(pts.size()); }
    void unpack(const Eigen::VectorXd& x, double& l, double& s, double& k) const {
        int i = 0;
        l = x[i++];
        s = free_s ? x[i++] : 0.0;
        k = free_k ? x[i++] : 0.0;
    }
    int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& f) const {
        double l, s, k;
        unpack(x, l, s, k);
        for (size_t i = 0; i < pts.size(); ++i) {
            const double n = pts[i].sessions;
            f[Eigen::Index(i)] = l * n / (1 + s * (n - 1) + k * n * (n - 1)) - pts[i].value;
        }
        return 0;
    }
    int df(const Eigen::VectorXd& x, Eigen::MatrixXd& j) const {
        double l, s, k;
        unpack(x, l, s, k);
        for (size_t i = 0; i < pts.size(); ++i) {
            const double n = pts[i].sessions, d = 1 + s * (n - 1) + k * n * (n - 1);
            const auto r = Eigen::Index(i);
            int c = 0;
            j(r, c++) = n / d;
            if (free_s) j(r, c++) = -l * n * (n - 1) / (d * d);
            if (free_k) j(r, c++) = -l * n * n * (n - 1) / (d * d);
        }
        return 0;
    }
};

// Least squares y = X beta for the columns in `cols` of {1, N-1, N(N-1)}; others 0.
Eigen::Vector3d poly_fit(std::span<const CapacityPoint> pts, const std::vector<int>& cols, bool of_n_over_x) {
    Eigen::MatrixXd X(Eigen::Index(pts.size()), Eigen::Index(cols.size()));
    Eigen::VectorXd y(Eigen::Index(pts.size()));
    for (size_t i = 0; i < pts.size(); ++i) {
        const double n = pts[i].sessions;
        const double basis[3] = {1, n - 1, n * (n - 1)};
        for (size_t c = 0; c < cols.size(); ++c) X(Eigen::Index(i), Eigen::Index(c)) = basis[cols[c]];
        y[Eigen::Index(i)] = of_n_over_x ? n / pts[i].value : pts[i].value;
    }
    Eigen::VectorXd beta = X.colPivHouseholderQr().solve(y);
    Eigen::Vector3d out = Eigen::Vector3d::Zero();
    for (size_t c = 0; c < cols.size(); ++c) out[cols[c]] = beta[Eigen::Index(c)];
    return out;
}

}  // namespace

std::optional<double> UslFit::peak_sessions() const {
    if (kappa <= 0 || sigma >= 1) return std::nullopt;
    return std::sqrt((1 - sigma) / kappa);
}

namespace {

// Why delivered FPS cannot stand for throughput here, or "" when it can: per-session FPS the
// same (within demand_limited_spread) at every measured count.
std::string demand_limited(std::span<const CapacityPoint> pts) {
    std::vector<double> per;
    std::set<double> counts;
    for (const auto& p : pts)
        if (std::isfinite(p.per_session) && p.per_session > 0) per.push_back(p.per_session), counts.insert(p.sessions);
    if (counts.size() < 3) return "";
    std::sort(per.begin(), per.end());
    const double med = per[per.size() / 2], lo = per.front(), hi = per.back();
    if ((hi - lo) / med > demand_limited_spread) return "";
    char b[400];
    std::snprintf(b, sizeof b,
                  "per-session FPS stayed at %.1f (%.1f to %.1f) at every measured count from %.0f to %.0f sessions: the "
                  "sessions got every frame they asked for (a frame cap or a fixed demand), so delivered FPS is their "
                  "demand, not what the host can deliver, and says nothing about where it saturates",
                  med, lo, hi, *counts.begin(), *counts.rbegin());
    return b;
}

}  // namespace

UslFit fit_usl(std::span<const CapacityPoint> pts) {
    UslFit best;
    best.points = int(pts.size());
    if (std::string why = demand_limited(pts); !why.empty()) {
        best.why = why;
        return best;
    }
    if (distinct_sessions(pts) < 3) {
        best.why = "needs at least 3 measured session counts";
        return best;
    }
    for (const auto& p : pts)
        if (!(p.value > 0) || !std::isfinite(p.value) || p.sessions < 1) {
            best.why = "a step delivered no frames";
            return best;
        }
    // Start: the linearised fit N/X = 1/lambda + (sigma/lambda)(N-1) + (kappa/lambda)N(N-1).
    Eigen::Vector3d lin = poly_fit(pts, {0, 1, 2}, true);
    const double l0 = lin[0] > 0 ? 1 / lin[0] : pts.front().value / pts.front().sessions;
    const double s0 = std::max(1e-4, lin[1] * l0), k0 = std::max(1e-6, lin[2] * l0);
    double best_sse = std::numeric_limits<double>::infinity();
    // Every active set of the two non-negative terms; the feasible one with the least error wins.
    for (int mask = 3; mask >= 0; --mask) {
        UslFunctor f{pts, bool(mask & 1), bool(mask & 2)};
        Eigen::VectorXd x(f.inputs());
        int i = 0;
        x[i++] = l0;
        if (f.free_s) x[i++] = s0;
        if (f.free_k) x[i++] = k0;
        Eigen::LevenbergMarquardt<UslFunctor> lm(f);
        lm.parameters.maxfev = 2000;
        lm.minimize(x);
        double l, s, k;
        f.unpack(x, l, s, k);
        if (!(l > 0) || s < 0 || k < 0 || !std::isfinite(l + s + k)) continue;
        Eigen::VectorXd r(f.values());
        f(x, r);
        const double sse = r.squaredNorm();
        if (sse < best_sse * (1 - 1e-9)) {
            best_sse = sse;
            best.ok = true;
            best.lambda = l;
            best.sigma = s;
            best.kappa = k;
        }
    }
    if (!best.ok) best.why = "the least-squares fit did not converge to non-negative terms";
    else best.r2 = r_squared(pts, best_sse);
    return best;
}

std::optional<double> P95Fit::crossing(double bound) const {
    if (predict(1) >= bound) return 1.0;
    if (c <= 0) {
        if (b <= 0) return std::nullopt;
        return 1 + (bound - a) / b;
    }
    // c N^2 + (b - c) N + (a - b - bound) = 0; increasing for N >= 1 (b, c >= 0): the larger root.
    const double qa = c, qb = b - c, qc = a - b - bound;
    const double disc = qb * qb - 4 * qa * qc;
    if (disc < 0) return std::nullopt;
    return (-qb + std::sqrt(disc)) / (2 * qa);
}

P95Fit fit_p95(std::span<const CapacityPoint> pts) {
    P95Fit best;
    best.points = int(pts.size());
    if (distinct_sessions(pts) < 3) {
        best.why = "needs at least 3 measured session counts";
        return best;
    }
    double best_sse = std::numeric_limits<double>::infinity();
    for (const auto& cols : std::vector<std::vector<int>>{{0, 1, 2}, {0, 1}, {0, 2}, {0}}) {
        Eigen::Vector3d beta = poly_fit(pts, cols, false);
        if (beta[1] < 0 || beta[2] < 0 || !beta.allFinite()) continue;
        P95Fit f;
        f.a = beta[0], f.b = beta[1], f.c = beta[2];
        double sse = 0;
        for (const auto& p : pts) sse += (f.predict(p.sessions) - p.value) * (f.predict(p.sessions) - p.value);
        if (sse < best_sse * (1 - 1e-9)) {
            best_sse = sse;
            best.a = f.a, best.b = f.b, best.c = f.c;
            best.ok = true;
        }
    }
    if (best.ok) best.r2 = r_squared(pts, best_sse);
    else best.why = "no non-negative fit";
    return best;
}

CrossingPrediction predict_crossing(std::span<const CapacityPoint> pts, double bound, const BootstrapOptions& opts) {
    CrossingPrediction p;
    p.bound_ms = bound;
    std::vector<CapacityPoint> good;
    for (const auto& q : pts)
        if (std::isfinite(q.value)) good.push_back(q);
    p.fit = fit_p95(good);
    if (!p.fit.ok) {
        p.why = p.fit.why;
        return p;
    }
    p.measured_min = p.measured_max = good.front().sessions;
    double lo = good.front().value, hi = lo, mean = 0;
    for (const auto& q : good) {
        p.measured_min = std::min(p.measured_min, q.sessions);
        p.measured_max = std::max(p.measured_max, q.sessions);
        lo = std::min(lo, q.value), hi = std::max(hi, q.value), mean += q.value / double(good.size());
    }
    // Claims only from a fit that explains the data, over data that moved (issue 29: a flat
    // series gave "R² 0.000" with a crossing and an interval "1.0-1.0").
    char b[320];
    if (mean <= 0 || (hi - lo) / mean < min_relative_spread) {
        std::snprintf(b, sizeof b,
                      "the worst p95 stayed between %.1f and %.1f from %.0f to %.0f sessions: not enough variation to fit "
                      "a trend, so no crossing is predicted",
                      lo, hi, p.measured_min, p.measured_max);
        p.why = b;
        return p;
    }
    if (p.fit.r2 < min_fit_r2) {
        std::snprintf(b, sizeof b,
                      "the fit explains little of the variation (R\u00b2 %.3f over %d windows, below %.1f): no crossing is "
                      "predicted from it",
                      p.fit.r2, p.fit.points, min_fit_r2);
        p.why = b;
        return p;
    }
    p.ok = true;
    if (p.fit.predict(1) >= bound) {
        p.above_at_one = true;
        p.predicted_max = 0u;
        return p;  // no crossing to bootstrap
    }
    p.crossing = p.fit.crossing(bound);
    if (p.crossing) {
        p.predicted_max = p.fit.predict(1) > bound ? 0u : static_cast<uint32_t>(std::floor(*p.crossing + 1e-9));
        p.extrapolated = *p.crossing > p.measured_max || *p.crossing < p.measured_min;
    } else {
        p.extrapolated = true;  // "never" is a claim about counts nobody measured
    }

    // Bootstrap over windows: resample the cases, refit, collect the crossings (+inf: never).
    std::mt19937_64 rng(opts.seed);
    std::uniform_int_distribution<size_t> pick(0, good.size() - 1);
    std::vector<double> crossings;
    std::vector<CapacityPoint> sample(good.size());
    p.resamples = opts.resamples;
    for (int r = 0; r < opts.resamples; ++r) {
        for (auto& s : sample) s = good[pick(rng)];
        P95Fit f = fit_p95(sample);
        if (!f.ok) continue;  // fewer than 3 distinct counts drawn
        crossings.push_back(f.crossing(bound).value_or(std::numeric_limits<double>::infinity()));
    }
    p.resamples_used = int(crossings.size());
    if (p.resamples_used >= opts.resamples / 2 && p.resamples_used >= 20) {
        std::sort(crossings.begin(), crossings.end());
        auto at = [&](double q) {
            size_t i = static_cast<size_t>(std::ceil(q * double(crossings.size()))) - 1;
            return crossings[std::min(i, crossings.size() - 1)];
        };
        p.ci_available = true;
        p.ci_lo = at(0.025);
        const double hi = at(0.975);
        if (std::isfinite(hi)) p.ci_hi = hi;
    }
    return p;
}

}  // namespace seatmark::core
