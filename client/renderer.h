#pragma once
// Renders frames offscreen into a small ring of colour+depth(+MSAA resolve)
// targets, so no window system is needed. Every frame carries two timestamp
// queries; a watcher thread waits on each frame's fence in submission order and
// reports when it signalled, so latency is measured at the fence, not later.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "client/frame_params.h"
#include "client/frame_sink.h"
#include "client/gpu_scene.h"
#include "client/pipelines.h"
#include "client/vk_resources.h"

namespace seatmark::client {

struct RenderSettings {
    uint32_t width = 640, height = 480;
    uint32_t msaa = 4;
    uint32_t frames_in_flight = 2;
    // > 0: paint the endpoint watermark (core/watermark.h) with blocks of this many pixels into
    // every frame's top-left corner, encoding the frame's sequence number (its submit token).
    uint32_t watermark_cell = 0;
    // > 0: every frame whose token is a multiple of it is also copied to host memory and handed
    // to on_reference() once its fence signalled (the session's own rendering, for SSIM).
    uint32_t reference_every = 0;
};

// Optional presentation to a window: the renderer blits each frame's colour
// into the image the hook acquired, inside the frame's command buffer.
class PresentHook {
public:
    virtual ~PresentHook() = default;
    // Acquires the next image; returns the semaphore the submit must wait on, or VK_NULL_HANDLE to skip presenting.
    virtual VkSemaphore acquire(uint32_t slot) = 0;
    virtual void record_blit(VkCommandBuffer cb, VkImage src, VkExtent2D extent) = 0;
    virtual VkSemaphore render_done(uint32_t slot) = 0;
    // Returns false when the frame was not presented.
    virtual bool present(uint32_t slot) = 0;
};

class Renderer {
public:
    Renderer(const Device& dev, SceneInput scene, const RenderSettings& settings);
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    // Called on the watcher thread for every completed frame, in submission order.
    void on_done(std::function<void(const FrameDone&)> cb) { done_cb_ = std::move(cb); }
    void set_present_hook(PresentHook* hook) { present_ = hook; }
    // Called on the watcher thread with a sampled frame's RGBA8 pixels (valid during the call).
    using ReferenceCallback = std::function<void(uint64_t token, const uint8_t* rgba, uint32_t width, uint32_t height)>;
    void on_reference(ReferenceCallback cb) { reference_cb_ = std::move(cb); }

    // Blocks until the next target in the ring is free (its previous frame's
    // fence signalled). A frame "begins" after this, as an application's frame
    // begins after it waited for a free back buffer.
    void wait_for_slot();

    // Records and submits the frame into the next target (waiting for it if
    // needed), then presents it with a present hook. Returns when vkQueueSubmit
    // and vkQueuePresentKHR returned. Rethrows a fault the watcher saw (device lost).
    Submitted submit(const FrameParams& params, uint64_t token);

    // Waits until every submitted frame completed; rethrows a watcher fault.
    void drain();

    // Renders one frame synchronously and returns its RGBA8 pixels (row-major, top row first).
    // With a watermark on, it carries `token` as any submitted frame would.
    std::vector<uint8_t> capture(const FrameParams& params, uint64_t token = 0);

    VkExtent2D extent() const { return extent_; }
    bool has_timestamps() const { return timestamps_; }
    uint64_t gpu_bytes() const { return scene_.bytes(); }
    uint32_t frames_in_flight() const { return static_cast<uint32_t>(slots_.size()); }

private:
    struct Slot {
        Image color_msaa, depth, color;  // color is the resolve target (or the only one at msaa 1)
        Framebuffer framebuffer;
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        Fence fence;
        bool busy = false;
        Buffer reference;            // host-visible copy of `color` for sampled frames
        bool reference_taken = false;
    };
    struct Pending {
        uint32_t slot;
        uint64_t token;
    };

    void create_render_pass(VkFormat color, VkFormat depth);
    void record(VkCommandBuffer cb, uint32_t slot, const FrameParams& params, uint64_t token);
    void record_watermark(VkCommandBuffer cb, uint64_t token);
    void watch();
    void rethrow_fault();

    const Device& dev_;
    RenderSettings settings_;
    VkExtent2D extent_;
    VkSampleCountFlagBits samples_;
    CommandPool pool_;
    GpuScene scene_;
    RenderPass pass_;
    std::unique_ptr<Pipelines> pipelines_;
    QueryPool queries_;
    bool timestamps_ = false;
    double timestamp_period_ns_ = 1;
    uint64_t timestamp_mask_ = ~0ull;
    std::vector<Slot> slots_;
    uint32_t next_slot_ = 0;
    PresentHook* present_ = nullptr;
    std::function<void(const FrameDone&)> done_cb_;
    ReferenceCallback reference_cb_;
    void record_reference(VkCommandBuffer cb, Slot& s);

    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Pending> pending_;
    std::exception_ptr fault_;
    bool stop_ = false;
    std::thread watcher_;
};

}  // namespace seatmark::client
