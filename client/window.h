#pragma once
// --window: a real window for a person to watch a session (GLFW on Linux,
// client/window_posix.cpp; a Win32 window on Windows, client/window_windows.cpp). The offscreen
// frame is blitted into the swapchain image inside the frame's command buffer,
// so headless and windowed sessions measure the same rendering work plus one blit.
#include <vulkan/vulkan.h>

#include <string>
#include <vector>

#include "client/renderer.h"
#include "client/vk_resources.h"

namespace seatmark::client {

// The window; outlives the Vulkan instance.
class Window {
public:
    Window(uint32_t width, uint32_t height, const std::string& title);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    std::vector<const char*> instance_extensions() const;
    bool should_close() const;
    void poll();
    // The Vulkan surface of this window (VK_KHR_xlib/wayland via GLFW, VK_KHR_win32_surface).
    VkSurfaceKHR create_surface(VkInstance instance) const;

private:
    void* native_ = nullptr;  // GLFWwindow* or HWND
};

// Surface and swapchain of a Window; created after the device, destroyed
// before it (declare it after the Device and before the Renderer).
class Presenter : public PresentHook {
public:
    Presenter(VkInstance instance, const Device& device, Window& window, VkExtent2D frame_extent);
    ~Presenter() override;
    Presenter(const Presenter&) = delete;
    Presenter& operator=(const Presenter&) = delete;

    VkSemaphore acquire(uint32_t slot) override;
    void record_blit(VkCommandBuffer cb, VkImage src, VkExtent2D extent) override;
    VkSemaphore render_done(uint32_t slot) override;
    bool present(uint32_t slot) override;

private:
    void create_swapchain();
    void destroy_swapchain();

    VkInstance instance_ = VK_NULL_HANDLE;
    const Device* device_ = nullptr;
    VkSurfaceKHR surface_ = VK_NULL_HANDLE;
    VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
    VkExtent2D extent_{};
    std::vector<VkImage> images_;
    std::vector<Semaphore> acquired_, done_;  // per renderer slot
    uint32_t image_index_ = 0;
    bool acquired_ok_ = false;
};

}  // namespace seatmark::client
