#pragma once
// Which Vulkan devices are software renderers: frames drawn by the CPU, so a session on one
// measures the host's CPU and not a GPU. One rule for Linux and Windows: a CPU-type device,
// Mesa's llvmpipe (lavapipe), Google's SwiftShader, and on Windows Microsoft's Basic Render
// Driver / WARP (the software adapter Windows falls back to without a GPU driver, which Vulkan
// sees through Mesa's Dozen layer), whatever type the device claims.
#include <vulkan/vulkan.h>

#include <string>

namespace seatmark::client {

// "" when the device is a hardware GPU; else why it is taken for a software renderer.
std::string software_renderer_reason(VkPhysicalDeviceType type, VkDriverId driver, const std::string& device_name);

}  // namespace seatmark::client
