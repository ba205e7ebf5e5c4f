#pragma once
// The capacity model (docs/design.md "Capacity model"): a scalability curve fitted to the
// measured steps, and where it says the service level would be crossed.
//
// Throughput: Gunther's Universal Scalability Law on delivered frames per second (the sum over
// a window's sessions of their FPS),
//     X(N) = lambda * N / (1 + sigma * (N - 1) + kappa * N * (N - 1)),
// lambda the throughput of one session alone, sigma the contention (serialised share), kappa
// the coherency (cross-talk) cost; X peaks at N* = sqrt((1 - sigma) / kappa). Fitted by
// Levenberg-Marquardt (Eigen's unsupported LevenbergMarquardt module) from the linearised
// least-squares start N/X = (1 + sigma(N-1) + kappa N(N-1)) / lambda, with sigma, kappa >= 0
// (a negative one is fixed at 0 and the rest refitted).
//
// Experience: the worst session's p95 frame interval per window (what the SLA judges) against
// sessions, as the USL's denominator predicts it: p95(N) = a + b (N - 1) + c N (N - 1), b, c >= 0
// (non-negative least squares over the four active sets). The predicted SLA crossing is the N
// where p95(N) reaches the bound; its 95 % interval comes from a bootstrap over windows (each
// window is one (sessions, figure) case, resampled with replacement, refitted).
// A crossing outside the measured session counts is an extrapolation and says so.
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace seatmark::core {

struct CapacityPoint {
    double sessions = 0;
    double value = 0;  // delivered FPS (USL) or worst-session p95 ms (p95 fit)
    // USL points: the window's median per-session FPS (NaN: not given). Sessions that keep the
    // same FPS at every count got every frame they asked for (a frame cap or fixed demand): their
    // sum is demand, not what the host can deliver, and the USL is not fitted to it.
    double per_session = NAN;
};

// What the data must show before a fit's claims are made (issue 29: claims only what the data
// supports). A p95 fit whose R^2 is below min_fit_r2, or data whose worst p95 spans less than
// min_relative_spread of its mean, predicts no crossing; per-session FPS within
// demand_limited_spread of its median at every count is demand, not throughput.
inline constexpr double min_fit_r2 = 0.5;
inline constexpr double min_relative_spread = 0.05;
inline constexpr double demand_limited_spread = 0.03;

struct UslFit {
    bool ok = false;
    std::string why;  // why there is no fit
    double lambda = 0, sigma = 0, kappa = 0;
    double r2 = 0;  // coefficient of determination on the points
    int points = 0;
    double predict(double n) const { return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1)); }
    // Where throughput peaks (N*); nullopt when kappa is 0 (no retrograde region).
    std::optional<double> peak_sessions() const;
};

UslFit fit_usl(std::span<const CapacityPoint> fps_points);

struct P95Fit {
    bool ok = false;
    std::string why;
    double a = 0, b = 0, c = 0;
    double r2 = 0;
    int points = 0;
    double predict(double n) const { return a + b * (n - 1) + c * n * (n - 1); }
    // The least N >= 1 with predict(N) >= bound: 1 when already at one session; nullopt when
    // the curve never reaches it (flat).
    std::optional<double> crossing(double bound_ms) const;
};

P95Fit fit_p95(std::span<const CapacityPoint> p95_points);

struct CrossingPrediction {
    bool ok = false;
    std::string why;            // why there is no prediction
    P95Fit fit;
    double bound_ms = 0;
    std::optional<double> crossing;  // sessions where the fit reaches the bound; nullopt: never
    // The largest whole session count the fit keeps within the bound (floor of the crossing,
    // or one below it when it lands on a whole number).
    std::optional<uint32_t> predicted_max;
    // Bootstrap 95 % interval of the crossing; hi nullopt: some resamples never cross (unbounded).
    bool ci_available = false;
    double ci_lo = 0;
    std::optional<double> ci_hi;
    int resamples = 0, resamples_used = 0;
    double measured_min = 0, measured_max = 0;  // session counts measured
    bool extrapolated = false;  // the crossing lies outside [measured_min, measured_max]
    // The fit is at or above the bound already at one session: nothing to cross (crossing is
    // nullopt, predicted_max 0), and no marker belongs on the bound line.
    bool above_at_one = false;
};

struct BootstrapOptions {
    int resamples = 400;
    uint64_t seed = 0x5ea7;  // fixed: the same database gives the same report
};

CrossingPrediction predict_crossing(std::span<const CapacityPoint> p95_points, double bound_ms,
                                    const BootstrapOptions& opts = {});

}  // namespace seatmark::core
