#pragma once
// Physical device choice and the logical device a session renders with.
// What a session really got (name, type, driver) is always reported, because
// a density figure means nothing without the device behind it.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

namespace seatmark::client {

struct DeviceInfo {
    uint32_t index = 0;            // in vkEnumeratePhysicalDevices order
    std::string name;
    std::string type;              // "discrete", "integrated", "virtual", "cpu", "other"
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    std::string vendor;            // "NVIDIA", "AMD", "Intel", "Mesa", ... or the id in hex
    std::string driver_name;       // VkPhysicalDeviceDriverProperties::driverName
    std::string driver_info;       // ...::driverInfo (Mesa version, NVIDIA release)
    std::string driver_version;    // decoded per vendor convention
    std::string api_version;       // "1.3.230"
    bool software = false;         // a CPU renderer (lavapipe/llvmpipe, SwiftShader)
    float timestamp_period_ns = 0; // ns per timestamp tick
    uint32_t timestamp_valid_bits = 0;  // of the graphics queue family; 0 = no timestamps
    uint32_t max_msaa = 1;         // highest sample count for colour and depth framebuffers
    uint32_t max_image_dimension_2d = 0;  // VkPhysicalDeviceLimits::maxImageDimension2D (largest render target side)
};

std::vector<DeviceInfo> list_devices(VkInstance instance);

// --device INDEX|NAME (case-insensitive substring), else the first discrete GPU,
// else integrated, else virtual, else a CPU device. Throws InputError when
// nothing matches (listing what exists) or no device exists.
DeviceInfo choose_device(VkInstance instance, const std::string& wanted);

class Device {
public:
    Device(VkInstance instance, const DeviceInfo& info, const std::vector<const char*>& extensions = {});
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkPhysicalDevice physical() const { return physical_; }
    VkDevice handle() const { return device_; }
    VkQueue queue() const { return queue_; }
    uint32_t queue_family() const { return family_; }
    const DeviceInfo& info() const { return info_; }
    const VkPhysicalDeviceProperties& properties() const { return props_; }

    // A memory type index with `wanted` flags among `type_bits`; throws if none.
    uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags wanted) const;
    bool has_memory_type(uint32_t type_bits, VkMemoryPropertyFlags wanted) const;

private:
    DeviceInfo info_;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties props_{};
    VkPhysicalDeviceMemoryProperties mem_{};
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t family_ = 0;
};

}  // namespace seatmark::client
