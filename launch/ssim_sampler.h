#pragma once
// Image quality at the endpoint, sampled: for every arriving frame whose number the session
// sampled (`seatmark session --reference-dir DIR --reference-every N`), SSIM of what arrived
// against the session's own rendering of that number. The reference is read from DIR (the
// session's folder, reachable from the launcher: same machine or a shared folder); a frame whose
// reference is not there yet is kept (one at a time) and retried for two seconds.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/watermark.h"
#include "image/reference_frame.h"

namespace seatmark::launch {

struct SsimSummary {
    uint64_t samples = 0;   // frames compared
    uint64_t missing = 0;   // sampled frames that arrived but whose reference never appeared
    double mean = -1, min = -1;
};

class SsimSampler {
public:
    // on_sample: each comparison made (frame number, SSIM), on the caller's thread.
    // Where references come from: the session's folder (`dir`), or, with a launcher joined to a
    // run, the session itself on request through the orchestrator (`provider`: nullopt until it
    // has the reference; asked again on later paints for two seconds).
    using Provider = std::function<std::optional<image::ReferenceFrame>(uint64_t seq)>;
    SsimSampler(std::string dir, uint32_t every, std::function<void(uint64_t, double)> on_sample = {}, Provider provider = {})
        : dir_(std::move(dir)), every_(every), on_sample_(std::move(on_sample)), provider_(std::move(provider)) {}
    bool enabled() const { return (!dir_.empty() || provider_) && every_ > 0; }
    // After each paint; `arrived_seq` >= 0 when this paint completed a new frame.
    // window_x/y: the window's top-left in the desktop (the watermark's origin).
    void on_paint(const watermark::FrameView& frame, int64_t now_ns, int64_t arrived_seq, int window_x, int window_y);
    void finish();  // counts a still-pending frame as missing
    SsimSummary summary() const;

private:
    bool try_compare(const watermark::FrameView& frame, uint64_t seq, int wx, int wy);
    std::string dir_;
    uint32_t every_;
    std::function<void(uint64_t, double)> on_sample_;
    Provider provider_;
    std::vector<double> values_;
    uint64_t missing_ = 0;
    // The pending frame: a copy of the desktop as it arrived.
    bool pending_ = false;
    uint64_t pending_seq_ = 0;
    int pending_x_ = 0, pending_y_ = 0;
    int64_t pending_since_ns_ = 0;
    std::vector<uint8_t> pending_pixels_;
    watermark::FrameView pending_view_{};
};

}  // namespace seatmark::launch
