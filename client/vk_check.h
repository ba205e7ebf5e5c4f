#pragma once
// Turns a VkResult into an exception that carries the exit code for its kind
// (device lost, out of memory, other), so a session ends with a distinct code.
#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace seatmark::client {

struct VulkanError : std::runtime_error {
    VulkanError(VkResult r, const std::string& what);
    VkResult result;
    int exit_code() const;
};

const char* to_string(VkResult r);

inline void vk_check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw VulkanError(r, what);
}

}  // namespace seatmark::client
