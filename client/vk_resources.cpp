#include "client/vk_resources.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "client/vk_check.h"

namespace seatmark::client {

namespace {

VkDeviceMemory allocate(const Device& dev, VkMemoryRequirements req, VkMemoryPropertyFlags props) {
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = dev.memory_type(req.memoryTypeBits, props);
    VkDeviceMemory mem = VK_NULL_HANDLE;
    vk_check(vkAllocateMemory(dev.handle(), &ai, nullptr, &mem), "vkAllocateMemory");
    return mem;
}

}  // namespace

Buffer::Buffer(const Device& dev, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags props)
    : device_(dev.handle()), size_(size) {
    VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.size = size ? size : 4;
    ci.usage = usage;
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    vk_check(vkCreateBuffer(device_, &ci, nullptr, &buffer_), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, buffer_, &req);
    try {
        memory_ = allocate(dev, req, props);
    } catch (...) {
        release();
        throw;
    }
    vk_check(vkBindBufferMemory(device_, buffer_, memory_, 0), "vkBindBufferMemory");
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept
    : device_(o.device_),
      buffer_(std::exchange(o.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(o.memory_, VK_NULL_HANDLE)),
      size_(o.size_),
      mapped_(std::exchange(o.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        release();
        device_ = o.device_;
        buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        size_ = o.size_;
        mapped_ = std::exchange(o.mapped_, nullptr);
    }
    return *this;
}

void Buffer::release() {
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);  // unmaps implicitly
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
}

void* Buffer::map() {
    if (!mapped_) vk_check(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
    return mapped_;
}

Image::Image(const Device& dev, VkFormat format, VkExtent2D extent, VkSampleCountFlagBits samples,
             VkImageUsageFlags usage, VkImageAspectFlags aspect)
    : device_(dev.handle()), format_(format) {
    VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = format;
    ci.extent = {extent.width, extent.height, 1};
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = samples;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = usage;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    vk_check(vkCreateImage(device_, &ci, nullptr, &image_), "vkCreateImage");
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device_, image_, &req);
    try {
        memory_ = allocate(dev, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        vk_check(vkBindImageMemory(device_, image_, memory_, 0), "vkBindImageMemory");
        VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vi.image = image_;
        vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vi.format = format;
        vi.subresourceRange = {aspect, 0, 1, 0, 1};
        vk_check(vkCreateImageView(device_, &vi, nullptr, &view_), "vkCreateImageView");
    } catch (...) {
        release();
        throw;
    }
}

Image::~Image() { release(); }

Image::Image(Image&& o) noexcept
    : device_(o.device_),
      image_(std::exchange(o.image_, VK_NULL_HANDLE)),
      view_(std::exchange(o.view_, VK_NULL_HANDLE)),
      memory_(std::exchange(o.memory_, VK_NULL_HANDLE)),
      format_(o.format_) {}

Image& Image::operator=(Image&& o) noexcept {
    if (this != &o) {
        release();
        device_ = o.device_;
        image_ = std::exchange(o.image_, VK_NULL_HANDLE);
        view_ = std::exchange(o.view_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        format_ = o.format_;
    }
    return *this;
}

void Image::release() {
    if (view_) vkDestroyImageView(device_, view_, nullptr);
    if (image_) vkDestroyImage(device_, image_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);
    view_ = VK_NULL_HANDLE;
    image_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
}

void submit_and_wait(const Device& dev, VkCommandPool pool, void (*record)(VkCommandBuffer, void*), void* ctx) {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    vk_check(vkAllocateCommandBuffers(dev.handle(), &ai, &cb), "vkAllocateCommandBuffers");
    struct Free {
        VkDevice d;
        VkCommandPool p;
        VkCommandBuffer c;
        ~Free() { vkFreeCommandBuffers(d, p, 1, &c); }
    } free_cb{dev.handle(), pool, cb};

    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk_check(vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
    record(cb, ctx);
    vk_check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");

    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence f = VK_NULL_HANDLE;
    vk_check(vkCreateFence(dev.handle(), &fi, nullptr, &f), "vkCreateFence");
    Fence fence(dev.handle(), f);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    vk_check(vkQueueSubmit(dev.queue(), 1, &si, fence), "vkQueueSubmit");
    vk_check(vkWaitForFences(dev.handle(), 1, &f, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

Buffer upload_buffer(const Device& dev, VkCommandPool pool, const void* bytes, size_t size, VkBufferUsageFlags usage,
                     const std::function<void(const void*, size_t)>& done) {
    Buffer target(dev, size, usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (!size) return target;
    const size_t chunk = std::min(size, upload_chunk);
    Buffer staging(dev, chunk, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    void* mapped = staging.map();
    const auto* src = static_cast<const uint8_t*>(bytes);
    for (size_t at = 0; at < size; at += chunk) {
        const size_t n = std::min(chunk, size - at);
        std::memcpy(mapped, src + at, n);
        if (done) done(src + at, n);
        // One copy at a time: the staging buffer is written again only after the copy finished.
        one_shot(dev, pool, [&](VkCommandBuffer cb) {
            VkBufferCopy region{0, at, n};
            vkCmdCopyBuffer(cb, staging.get(), target.get(), 1, &region);
        });
    }
    return target;
}

}  // namespace seatmark::client
