#pragma once
// What one RDP session's user saw, from the paints its connection received: which rendered
// frames arrived (the watermark's sequence numbers) and when, in the launcher's clock. The
// figures that need the host's side (render-to-arrival latency, SSIM) are joined with the
// session's own frame records where both meet (the run controller, the report).
#include <cstdint>
#include <optional>
#include <vector>

#include "core/ssim.h"
#include "core/watermark.h"

namespace seatmark::launch {

struct Arrival {
    uint64_t seq;        // the rendered frame's sequence number (unwrapped)
    int64_t arrival_ns;  // launcher CLOCK_MONOTONIC: the paint that completed it
};

struct EndpointSummary {
    uint64_t arrivals = 0;          // distinct rendered frames seen
    uint64_t paints = 0;            // updates painted (a frame may take several)
    uint64_t unreadable = 0;        // paints over the watermark that did not decode
    uint64_t first_seq = 0, last_seq = 0;
    double span_s = 0;              // first to last arrival
    double arrivals_per_s = 0;      // (arrivals - 1) / span_s
    double delivered_ratio = 0;     // arrivals / (last_seq - first_seq + 1): VMware's relative frame rate
    double interval_p50_ms = 0, interval_p95_ms = 0, interval_p99_ms = 0;  // arrival to arrival
};

class EndpointMeter {
public:
    explicit EndpointMeter(watermark::Layout layout = {}) : layout_(layout) {}

    // One paint: decodes the watermark when the update touched it. Returns the arrival when
    // it showed a rendered frame not seen before (a later paint of the same frame is not one).
    std::optional<Arrival> on_paint(const watermark::FrameView& frame, int64_t arrival_ns, int x, int y, int w, int h);

    const std::vector<Arrival>& arrivals() const { return arrivals_; }
    // Where the grid is now: the top-left of the session's window (found again with
    // watermark::locate when a window manager placed or moved it).
    const watermark::Layout& layout() const { return layout_; }
    int64_t first_paint_ns() const { return first_paint_ns_; }
    EndpointSummary summary() const;

    // The last frame's watermark region decoded and its gray copy kept for SSIM against
    // the session's rendering of the same number (sampled: callers ask for it).
    struct Sample {
        uint64_t seq;
        int64_t arrival_ns;
        ssim::Gray gray;
    };
    // Takes a gray copy of the frame just painted at `region` if it carried the watermark.
    std::optional<Sample> sample(const watermark::FrameView& frame, int x0, int y0, int w, int h, int out_w, int out_h) const;

private:
    watermark::Layout layout_;
    std::vector<Arrival> arrivals_;
    uint64_t paints_ = 0, unreadable_ = 0, since_decoded_ = 0;
    int64_t first_paint_ns_ = 0;
    bool have_last_ = false;
    uint64_t last_seq_ = 0;
};

}  // namespace seatmark::launch
