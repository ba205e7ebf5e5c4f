#include "client/window.h"

#include <algorithm>

#include "client/vk_check.h"
#include "common/errors.h"

namespace seatmark::client {

Presenter::~Presenter() {
    vkDeviceWaitIdle(device_->handle());
    destroy_swapchain();
    acquired_.clear();
    done_.clear();
    if (surface_) vkDestroySurfaceKHR(instance_, surface_, nullptr);
}

Presenter::Presenter(VkInstance instance, const Device& device, Window& window, VkExtent2D frame_extent) {
    instance_ = instance;
    device_ = &device;
    extent_ = frame_extent;
    surface_ = window.create_surface(instance);
    VkBool32 supported = VK_FALSE;
    vkGetPhysicalDeviceSurfaceSupportKHR(device.physical(), device.queue_family(), surface_, &supported);
    if (!supported) throw InputError("--window: " + device.info().name + " cannot present to this window");
    create_swapchain();
    for (int i = 0; i < 4; ++i) {
        VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VkSemaphore a, d;
        vk_check(vkCreateSemaphore(device.handle(), &si, nullptr, &a), "vkCreateSemaphore");
        vk_check(vkCreateSemaphore(device.handle(), &si, nullptr, &d), "vkCreateSemaphore");
        acquired_.emplace_back(device.handle(), a);
        done_.emplace_back(device.handle(), d);
    }
}

void Presenter::create_swapchain() {
    VkSurfaceCapabilitiesKHR caps;
    vk_check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device_->physical(), surface_, &caps),
             "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
    uint32_t n = 0;
    vkGetPhysicalDeviceSurfaceFormatsKHR(device_->physical(), surface_, &n, nullptr);
    std::vector<VkSurfaceFormatKHR> formats(n);
    vkGetPhysicalDeviceSurfaceFormatsKHR(device_->physical(), surface_, &n, formats.data());
    if (formats.empty()) throw InputError("--window: the surface offers no formats");
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
        throw InputError("--window: the swapchain cannot be a transfer destination on this device");
    VkSurfaceFormatKHR fmt = formats[0];
    for (auto& f : formats)
        if (f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) fmt = f;

    VkExtent2D ext = caps.currentExtent.width != UINT32_MAX ? caps.currentExtent : extent_;
    VkSwapchainCreateInfoKHR ci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    ci.surface = surface_;
    ci.minImageCount = std::max(caps.minImageCount, 3u);
    if (caps.maxImageCount) ci.minImageCount = std::min(ci.minImageCount, caps.maxImageCount);
    ci.imageFormat = fmt.format;
    ci.imageColorSpace = fmt.colorSpace;
    ci.imageExtent = ext;
    ci.imageArrayLayers = 1;
    ci.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.preTransform = caps.currentTransform;
    ci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    // IMMEDIATE/MAILBOX would be closer to "uncapped", but FIFO is the one mode every driver has;
    // the session's own frame cap is what paces it.
    ci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    ci.clipped = VK_TRUE;
    vk_check(vkCreateSwapchainKHR(device_->handle(), &ci, nullptr, &swapchain_), "vkCreateSwapchainKHR");
    extent_ = ext;
    vkGetSwapchainImagesKHR(device_->handle(), swapchain_, &n, nullptr);
    images_.resize(n);
    vkGetSwapchainImagesKHR(device_->handle(), swapchain_, &n, images_.data());
}

void Presenter::destroy_swapchain() {
    if (swapchain_) vkDestroySwapchainKHR(device_->handle(), swapchain_, nullptr);
    swapchain_ = VK_NULL_HANDLE;
    images_.clear();
}

VkSemaphore Presenter::acquire(uint32_t slot) {
    VkResult r = vkAcquireNextImageKHR(device_->handle(), swapchain_, UINT64_MAX, acquired_[slot % 4], VK_NULL_HANDLE,
                                       &image_index_);
    acquired_ok_ = r == VK_SUCCESS || r == VK_SUBOPTIMAL_KHR;
    if (r == VK_ERROR_OUT_OF_DATE_KHR) return VK_NULL_HANDLE;  // window changed: skip presenting this frame
    if (!acquired_ok_) vk_check(r, "vkAcquireNextImageKHR");
    return acquired_[slot % 4];
}

void Presenter::record_blit(VkCommandBuffer cb, VkImage src, VkExtent2D extent) {
    VkImage dst = images_[image_index_];
    VkImageMemoryBarrier to_dst{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    to_dst.srcAccessMask = 0;
    to_dst.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_dst.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    to_dst.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    to_dst.srcQueueFamilyIndex = to_dst.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_dst.image = dst;
    to_dst.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                         1, &to_dst);
    VkImageBlit blit{};
    blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    blit.srcOffsets[1] = {int32_t(extent.width), int32_t(extent.height), 1};
    blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    blit.dstOffsets[1] = {int32_t(extent_.width), int32_t(extent_.height), 1};
    vkCmdBlitImage(cb, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit,
                   VK_FILTER_LINEAR);
    VkImageMemoryBarrier to_present = to_dst;
    to_present.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_present.dstAccessMask = 0;
    to_present.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    to_present.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &to_present);
}

VkSemaphore Presenter::render_done(uint32_t slot) { return done_[slot % 4]; }

bool Presenter::present(uint32_t slot) {
    VkSemaphore wait = done_[slot % 4];
    VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    pi.waitSemaphoreCount = 1;
    pi.pWaitSemaphores = &wait;
    pi.swapchainCount = 1;
    pi.pSwapchains = &swapchain_;
    pi.pImageIndices = &image_index_;
    VkResult r = vkQueuePresentKHR(device_->queue(), &pi);
    if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR && r != VK_ERROR_OUT_OF_DATE_KHR) vk_check(r, "vkQueuePresentKHR");
    return r != VK_ERROR_OUT_OF_DATE_KHR;
}

}  // namespace seatmark::client
