#pragma once
// RAII owners for the few Vulkan objects a session makes: buffers and images
// with their own memory (a session holds a handful, so no sub-allocator), and a
// generic handle owner for everything destroyed by one vkDestroy* call.
#include <vulkan/vulkan.h>

#include <cstddef>
#include <functional>
#include <utility>

#include "client/vk_device.h"

namespace seatmark::client {

// Owns one handle destroyed with vkDestroyX(device, handle, nullptr).
template <typename T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
class Handle {
public:
    Handle() = default;
    Handle(VkDevice d, T h) : device_(d), h_(h) {}
    ~Handle() { reset(); }
    Handle(Handle&& o) noexcept : device_(o.device_), h_(std::exchange(o.h_, VK_NULL_HANDLE)) {}
    Handle& operator=(Handle&& o) noexcept {
        if (this != &o) {
            reset();
            device_ = o.device_;
            h_ = std::exchange(o.h_, VK_NULL_HANDLE);
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    T get() const { return h_; }
    operator T() const { return h_; }
    void reset() {
        if (h_ != VK_NULL_HANDLE) Destroy(device_, h_, nullptr);
        h_ = VK_NULL_HANDLE;
    }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    T h_ = VK_NULL_HANDLE;
};

using ShaderModule = Handle<VkShaderModule, vkDestroyShaderModule>;
using PipelineLayout = Handle<VkPipelineLayout, vkDestroyPipelineLayout>;
using Pipeline = Handle<VkPipeline, vkDestroyPipeline>;
using RenderPass = Handle<VkRenderPass, vkDestroyRenderPass>;
using Framebuffer = Handle<VkFramebuffer, vkDestroyFramebuffer>;
using ImageView = Handle<VkImageView, vkDestroyImageView>;
using CommandPool = Handle<VkCommandPool, vkDestroyCommandPool>;
using Fence = Handle<VkFence, vkDestroyFence>;
using Semaphore = Handle<VkSemaphore, vkDestroySemaphore>;
using QueryPool = Handle<VkQueryPool, vkDestroyQueryPool>;

class Buffer {
public:
    Buffer() = default;
    Buffer(const Device& dev, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags props);
    ~Buffer();
    Buffer(Buffer&& o) noexcept;
    Buffer& operator=(Buffer&& o) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer get() const { return buffer_; }
    VkDeviceSize size() const { return size_; }
    void* map();  // host-visible buffers only; stays mapped until destruction

private:
    void release();
    VkDevice device_ = VK_NULL_HANDLE;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    void* mapped_ = nullptr;
};

class Image {
public:
    Image() = default;
    Image(const Device& dev, VkFormat format, VkExtent2D extent, VkSampleCountFlagBits samples,
          VkImageUsageFlags usage, VkImageAspectFlags aspect);
    ~Image();
    Image(Image&& o) noexcept;
    Image& operator=(Image&& o) noexcept;
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;

    VkImage get() const { return image_; }
    VkImageView view() const { return view_; }
    VkFormat format() const { return format_; }

private:
    void release();
    VkDevice device_ = VK_NULL_HANDLE;
    VkImage image_ = VK_NULL_HANDLE;
    VkImageView view_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkFormat format_ = VK_FORMAT_UNDEFINED;
};

// Records and submits a one-off command buffer, waiting for it (uploads, readbacks).
template <typename F>
void one_shot(const Device& dev, VkCommandPool pool, F&& record);

void submit_and_wait(const Device& dev, VkCommandPool pool, void (*record)(VkCommandBuffer, void*), void* ctx);

template <typename F>
void one_shot(const Device& dev, VkCommandPool pool, F&& record) {
    submit_and_wait(dev, pool, [](VkCommandBuffer cb, void* c) { (*static_cast<F*>(c))(cb); }, &record);
}

// A device-local buffer filled with `bytes` through a staging buffer of at most upload_chunk bytes,
// reused chunk by chunk: a 1 GB model must not cost a second gigabyte of host memory while it
// uploads. `done`, when given, is told each source range once it has been copied (a pack hands
// its pages back there).
constexpr size_t upload_chunk = size_t(32) << 20;
Buffer upload_buffer(const Device& dev, VkCommandPool pool, const void* bytes, size_t size, VkBufferUsageFlags usage,
                     const std::function<void(const void*, size_t)>& done = {});

}  // namespace seatmark::client
