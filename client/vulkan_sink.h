#pragma once
// The Vulkan renderer as the script player's frame sink, headless or into a window.
#include "client/frame_sink.h"
#include "client/renderer.h"
#include "client/window.h"

namespace seatmark::client {

class VulkanSink : public FrameSink {
public:
    VulkanSink(Renderer& renderer, Window* window) : r_(renderer), window_(window) {}
    void on_done(std::function<void(const FrameDone&)> cb) override { r_.on_done(std::move(cb)); }
    bool presents() const override { return window_ != nullptr; }
    uint32_t depth() const override { return r_.frames_in_flight(); }
    void wait_ready() override { r_.wait_for_slot(); }
    Submitted submit(const FrameParams& p, uint64_t token) override { return r_.submit(p, token); }
    void drain() override { r_.drain(); }
    void poll() override {
        if (window_) window_->poll();
    }
    bool closed() const override { return window_ && window_->should_close(); }

private:
    Renderer& r_;
    Window* window_;
};

}  // namespace seatmark::client
