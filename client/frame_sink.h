#pragma once
// Where the script player's frames go: the Vulkan renderer (headless or into a window)
// or the synthetic sink (no device). One player drives either, so tests and benches
// that use the synthetic sink exercise the loop real sessions run.
#include <cstdint>
#include <functional>

#include "client/frame_params.h"

namespace seatmark::client {

struct FrameDone {
    uint64_t token = 0;     // what submit() was given
    int64_t fence_ns = 0;   // steady clock when the frame's work was seen finished (its fence)
    int64_t gpu_ns = -1;    // bottom - top timestamp x period; -1 without timestamps
};

struct Submitted {
    int64_t submitted_ns = 0;  // the frame's work was handed over (vkQueueSubmit returned)
    int64_t presented_ns = -1; // vkQueuePresentKHR returned; -1 when the sink does not present
};

class FrameSink {
public:
    virtual ~FrameSink() = default;
    // Called for every completed frame, in submission order, on any thread.
    virtual void on_done(std::function<void(const FrameDone&)> cb) = 0;
    // True when submit() presents (a frame's present time is Submitted::presented_ns);
    // false when a frame counts as presented when its fence signals (headless).
    virtual bool presents() const { return false; }
    // Frames that may be in flight at once (the end-of-session rule needs it).
    virtual uint32_t depth() const { return 1; }
    // Blocks until a new frame may begin (a free target), as an application's frame
    // begins after it waited for a free back buffer.
    virtual void wait_ready() = 0;
    virtual Submitted submit(const FrameParams& params, uint64_t token) = 0;
    // Waits until every submitted frame completed.
    virtual void drain() = 0;
    virtual void poll() {}  // window events, while waiting too
    virtual bool closed() const { return false; }  // the person closed the window
};

}  // namespace seatmark::client
