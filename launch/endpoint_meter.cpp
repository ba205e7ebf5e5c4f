#include "launch/endpoint_meter.h"

#include <algorithm>

#include "core/stats.h"

namespace seatmark::launch {

std::optional<Arrival> EndpointMeter::on_paint(const watermark::FrameView& frame, int64_t arrival_ns, int x, int y,
                                               int w, int h) {
    ++paints_;
    if (!first_paint_ns_) first_paint_ns_ = arrival_ns;
    const bool touches = x < layout_.x0 + layout_.width() && x + w > layout_.x0 && y < layout_.y0 + layout_.height() &&
                         y + h > layout_.y0;
    auto d = touches ? watermark::decode(frame, layout_) : std::nullopt;
    if (!d) {
        if (touches) ++unreadable_;
        // Not where it was (or never seen): look for it over the whole desktop, every 8th paint
        // so a desktop without the grid costs little.
        if (since_decoded_++ % 8 != 0) return std::nullopt;
        const auto found = watermark::locate(frame, layout_.cell);
        if (!found) return std::nullopt;
        layout_ = *found;
        d = watermark::decode(frame, layout_);
        if (!d) return std::nullopt;
    }
    since_decoded_ = 0;
    const uint64_t seq = have_last_ ? watermark::unwrap(d->seq, last_seq_) : d->seq;
    // Frames replace each other on screen: only a newer number is a new arrival.
    if (have_last_ && seq <= last_seq_) return std::nullopt;
    have_last_ = true;
    last_seq_ = seq;
    arrivals_.push_back({seq, arrival_ns});
    return arrivals_.back();
}

std::optional<EndpointMeter::Sample> EndpointMeter::sample(const watermark::FrameView& frame, int x0, int y0, int w,
                                                           int h, int out_w, int out_h) const {
    const auto d = watermark::decode(frame, layout_);
    if (!d || !have_last_) return std::nullopt;
    return Sample{watermark::unwrap(d->seq, last_seq_), arrivals_.empty() ? 0 : arrivals_.back().arrival_ns,
                  ssim::gray_downscaled(frame, x0, y0, w, h, out_w, out_h)};
}

EndpointSummary EndpointMeter::summary() const {
    EndpointSummary s;
    s.paints = paints_;
    s.unreadable = unreadable_;
    s.arrivals = arrivals_.size();
    if (arrivals_.empty()) return s;
    s.first_seq = arrivals_.front().seq;
    s.last_seq = arrivals_.back().seq;
    s.delivered_ratio = static_cast<double>(s.arrivals) / static_cast<double>(s.last_seq - s.first_seq + 1);
    s.span_s = static_cast<double>(arrivals_.back().arrival_ns - arrivals_.front().arrival_ns) / 1e9;
    if (s.span_s > 0) s.arrivals_per_s = static_cast<double>(s.arrivals - 1) / s.span_s;
    std::vector<double> iv;
    iv.reserve(arrivals_.size());
    for (size_t i = 1; i < arrivals_.size(); ++i)
        iv.push_back(static_cast<double>(arrivals_[i].arrival_ns - arrivals_[i - 1].arrival_ns) / 1e6);
    if (!iv.empty()) {
        s.interval_p50_ms = stats::percentile_nearest_rank(iv, 50);
        s.interval_p95_ms = stats::percentile_nearest_rank(iv, 95);
        s.interval_p99_ms = stats::percentile_nearest_rank(iv, 99);
    }
    return s;
}

}  // namespace seatmark::launch
