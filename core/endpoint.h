#pragma once
// Endpoint figures: what the remote user saw of a session, from the frames the session
// rendered (its own FrameRecords) and the arrivals a launcher decoded from the watermark
// (`seatmark launch`, docs/design.md "Endpoint measurement"). One definition, used by the
// live verdict, the stored per-session summary and the report.
//
// Over a span [t0, t1) the frames are those that began inside it (as for every other
// figure); an arrival counts when its sequence number is one of those frames and it arrived
// before t1 (so the live verdict, judged a little after t1, has every arrival it counts;
// a frame rendered just before t1 that reaches the client after it counts as not delivered
// in that span). Then:
//   endpoint FPS      = arrivals / span length (think pauses count: the user sees them too)
//   delivered ratio   = arrivals / frames rendered (VMware's "relative frame rate")
//   arrival interval  = arrival-to-arrival, in arrival order, nearest-rank p50/p95/p99
//   endpoint latency  = arrival - the frame's present time, p50/p95 (both stamps in the
//                       database's time base: the launcher's converted by its clock offset)
//   SSIM              = mean and minimum over the sampled frames among them
// NaN where nothing was measured (no frame rendered, no arrival, no SSIM sample).
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "common/frame_record.h"

namespace seatmark::core {

struct EndpointArrival {
    uint64_t seq = 0;         // the rendered frame's sequence number
    int64_t arrival_ns = 0;   // when its paint completed at the launcher, in the database's time base
};
struct SsimSample {
    uint64_t seq = 0;
    double ssim = NAN;        // received frame against the session's rendering of the same number
};

// Everything a launcher reported for one session so far.
struct EndpointSeries {
    std::vector<EndpointArrival> arrivals;
    std::vector<SsimSample> ssim;
};

struct EndpointFigures {
    uint64_t rendered = 0, arrivals = 0;
    double fps = NAN;
    double delivered_ratio = NAN;
    double interval_p50_ms = NAN, interval_p95_ms = NAN, interval_p99_ms = NAN;
    double latency_p50_ms = NAN, latency_p95_ms = NAN;
    uint64_t ssim_samples = 0;
    double ssim_mean = NAN, ssim_min = NAN;
};

// `frames`: the session's frames that began in the span, by begin time; `arrivals` and `ssim`:
// all of the session's (any order); span_s: the span's length; arrived_before: t1.
EndpointFigures endpoint_figures(std::span<const FrameRecord> frames, std::span<const EndpointArrival> arrivals,
                                 std::span<const SsimSample> ssim, double span_s,
                                 int64_t arrived_before = std::numeric_limits<int64_t>::max());

}  // namespace seatmark::core
