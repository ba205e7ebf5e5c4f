#pragma once
// The Vulkan instance, optionally with the Khronos validation layer and a
// messenger that counts what it reports (a session run with --validate must
// finish with zero messages).
#include <vulkan/vulkan.h>

#include <atomic>
#include <string>
#include <vector>

namespace seatmark::client {

struct InstanceOptions {
    bool validate = false;              // load VK_LAYER_KHRONOS_validation
    std::vector<const char*> extensions;  // extra instance extensions (window system)
};

class Instance {
public:
    explicit Instance(const InstanceOptions& opts);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    VkInstance handle() const { return instance_; }
    bool validating() const { return messenger_ != VK_NULL_HANDLE; }
    // Warnings and errors the validation layer reported so far.
    uint64_t validation_messages() const { return messages_.load(); }

private:
    static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                     void* user);
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    std::atomic<uint64_t> messages_{0};
};

}  // namespace seatmark::client
