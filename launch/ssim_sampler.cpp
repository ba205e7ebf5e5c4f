#include "launch/ssim_sampler.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/ssim.h"
#include "image/reference_frame.h"

namespace seatmark::launch {

bool SsimSampler::try_compare(const watermark::FrameView& frame, uint64_t seq, int wx, int wy) {
    const auto ref = provider_ ? provider_(seq) : image::read_reference(dir_ + "/" + image::reference_name(seq));
    if (!ref || ref->seq != seq) return false;
    if (wx + ref->width > frame.width || wy + ref->height > frame.height) {
        ++missing_;  // the window does not fit the desktop: nothing comparable arrived
        return true;
    }
    const auto got = ssim::gray_downscaled(frame, wx, wy, ref->width, ref->height, ref->gray_width, ref->gray_height);
    const ssim::Gray want{ref->gray_width, ref->gray_height, ref->gray};
    values_.push_back(ssim::mean_ssim(want, got));
    if (on_sample_) on_sample_(seq, values_.back());
    return true;
}

void SsimSampler::on_paint(const watermark::FrameView& frame, int64_t now_ns, int64_t arrived_seq, int wx, int wy) {
    if (!enabled()) return;
    if (pending_) {
        if (try_compare(pending_view_, pending_seq_, pending_x_, pending_y_)) pending_ = false;
        else if (now_ns - pending_since_ns_ > 2'000'000'000) {
            ++missing_;
            pending_ = false;
        }
    }
    if (arrived_seq < 0 || static_cast<uint64_t>(arrived_seq) % every_ != 0) return;
    const auto seq = static_cast<uint64_t>(arrived_seq);
    if (try_compare(frame, seq, wx, wy)) return;
    if (pending_) ++missing_;  // a newer sample replaces one still waiting
    pending_ = true;
    pending_seq_ = seq;
    pending_x_ = wx;
    pending_y_ = wy;
    pending_since_ns_ = now_ns;
    const size_t bytes = static_cast<size_t>(frame.stride) * static_cast<size_t>(frame.height);
    pending_pixels_.resize(bytes);
    std::memcpy(pending_pixels_.data(), frame.pixels, bytes);
    pending_view_ = {pending_pixels_.data(), frame.width, frame.height, frame.stride};
}

void SsimSampler::finish() {
    if (pending_ && !try_compare(pending_view_, pending_seq_, pending_x_, pending_y_)) ++missing_;
    pending_ = false;
}

SsimSummary SsimSampler::summary() const {
    SsimSummary s;
    s.samples = values_.size();
    s.missing = missing_;
    if (!values_.empty()) {
        s.mean = std::accumulate(values_.begin(), values_.end(), 0.0) / static_cast<double>(values_.size());
        s.min = *std::min_element(values_.begin(), values_.end());
    }
    return s;
}

}  // namespace seatmark::launch
