#include "client/vk_device.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "client/software_renderer.h"
#include "client/vk_check.h"
#include "common/errors.h"

namespace seatmark::client {

namespace {

std::string type_name(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
        default: return "other";
    }
}

std::string vendor_name(uint32_t id) {
    switch (id) {
        case 0x10de: return "NVIDIA";
        case 0x1002: return "AMD";
        case 0x8086: return "Intel";
        case 0x10005: return "Mesa";
        case 0x13b5: return "ARM";
        case 0x5143: return "Qualcomm";
        case 0x1af4: return "virtio";
        default: {
            char buf[16];
            std::snprintf(buf, sizeof buf, "0x%04x", id);
            return buf;
        }
    }
}

// Vendors pack driverVersion differently; NVIDIA uses 10.8.8.6 bits.
std::string decode_driver_version(uint32_t vendor, uint32_t v) {
    char buf[48];
    if (vendor == 0x10de)
        std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", (v >> 22) & 0x3ff, (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
    else
        std::snprintf(buf, sizeof buf, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
    return buf;
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

int preference(const std::string& type) {
    if (type == "discrete") return 0;
    if (type == "integrated") return 1;
    if (type == "virtual") return 2;
    if (type == "cpu") return 3;
    return 4;
}

std::string describe(const std::vector<DeviceInfo>& devs) {
    std::string s;
    for (auto& d : devs) s += "\n  " + std::to_string(d.index) + ": " + d.name + " (" + d.type + ", " + d.driver_name + ")";
    return s;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance, &n, nullptr);
    std::vector<VkPhysicalDevice> devs(n);
    if (n) vk_check(vkEnumeratePhysicalDevices(instance, &n, devs.data()), "vkEnumeratePhysicalDevices");
    devs.resize(n);
    return devs;
}

uint32_t graphics_family(VkPhysicalDevice pd, uint32_t* valid_bits) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> fams(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fams.data());
    for (uint32_t i = 0; i < n; ++i)
        if (fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) {
            if (valid_bits) *valid_bits = fams[i].timestampValidBits;
            return i;
        }
    return UINT32_MAX;
}

}  // namespace

std::vector<DeviceInfo> list_devices(VkInstance instance) {
    std::vector<DeviceInfo> out;
    auto devs = physical_devices(instance);
    for (uint32_t i = 0; i < devs.size(); ++i) {
        VkPhysicalDeviceDriverProperties drv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
        VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        p2.pNext = &drv;
        vkGetPhysicalDeviceProperties2(devs[i], &p2);
        const auto& p = p2.properties;
        DeviceInfo d;
        d.index = i;
        d.name = p.deviceName;
        d.type = type_name(p.deviceType);
        d.vendor_id = p.vendorID;
        d.device_id = p.deviceID;
        d.vendor = vendor_name(p.vendorID);
        d.driver_name = drv.driverName;
        d.driver_info = drv.driverInfo;
        d.driver_version = decode_driver_version(p.vendorID, p.driverVersion);
        d.api_version = std::to_string(VK_API_VERSION_MAJOR(p.apiVersion)) + "." +
                        std::to_string(VK_API_VERSION_MINOR(p.apiVersion)) + "." +
                        std::to_string(VK_API_VERSION_PATCH(p.apiVersion));
        d.software = !software_renderer_reason(p.deviceType, drv.driverID, d.name).empty();
        d.timestamp_period_ns = p.limits.timestampPeriod;
        d.max_image_dimension_2d = p.limits.maxImageDimension2D;
        VkSampleCountFlags counts = p.limits.framebufferColorSampleCounts & p.limits.framebufferDepthSampleCounts;
        for (uint32_t s = 64; s >= 1; s /= 2)
            if (counts & s) {
                d.max_msaa = s;
                break;
            }
        uint32_t bits = 0;
        if (graphics_family(devs[i], &bits) == UINT32_MAX) continue;  // cannot render: not a candidate
        d.timestamp_valid_bits = bits;
        out.push_back(std::move(d));
    }
    return out;
}

DeviceInfo choose_device(VkInstance instance, const std::string& wanted) {
    auto devs = list_devices(instance);
    if (devs.empty())
        throw InputError("no Vulkan device: the loader found no device that can render; install a GPU driver or "
                         "mesa-vulkan-drivers (lavapipe), and check VK_ICD_FILENAMES / VK_DRIVER_FILES");
    if (!wanted.empty()) {
        bool numeric = std::all_of(wanted.begin(), wanted.end(), [](unsigned char c) { return std::isdigit(c); });
        for (auto& d : devs) {
            if (numeric ? std::to_string(d.index) == wanted : lower(d.name).find(lower(wanted)) != std::string::npos)
                return d;
        }
        throw InputError("--device " + wanted + ": no such Vulkan device; expected an index or part of a name among:" +
                         describe(devs));
    }
    return *std::min_element(devs.begin(), devs.end(), [](const DeviceInfo& a, const DeviceInfo& b) {
        return preference(a.type) < preference(b.type);
    });
}

Device::Device(VkInstance instance, const DeviceInfo& info, const std::vector<const char*>& extensions) : info_(info) {
    auto devs = physical_devices(instance);
    physical_ = devs.at(info.index);
    vkGetPhysicalDeviceProperties(physical_, &props_);
    vkGetPhysicalDeviceMemoryProperties(physical_, &mem_);
    family_ = graphics_family(physical_, nullptr);

    float priority = 1.0f;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = family_;
    q.queueCount = 1;
    q.pQueuePriorities = &priority;

    VkPhysicalDeviceFeatures supported{};
    vkGetPhysicalDeviceFeatures(physical_, &supported);
    VkPhysicalDeviceFeatures features{};
    // Wide lines are optional; edges use width 1 everywhere so no feature is needed.
    features.fillModeNonSolid = supported.fillModeNonSolid;

    VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &q;
    ci.pEnabledFeatures = &features;
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    vk_check(vkCreateDevice(physical_, &ci, nullptr, &device_), "vkCreateDevice");
    vkGetDeviceQueue(device_, family_, 0, &queue_);
}

Device::~Device() {
    if (device_) {
        vkDeviceWaitIdle(device_);
        vkDestroyDevice(device_, nullptr);
    }
}

bool Device::has_memory_type(uint32_t type_bits, VkMemoryPropertyFlags wanted) const {
    for (uint32_t i = 0; i < mem_.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (mem_.memoryTypes[i].propertyFlags & wanted) == wanted) return true;
    return false;
}

uint32_t Device::memory_type(uint32_t type_bits, VkMemoryPropertyFlags wanted) const {
    for (uint32_t i = 0; i < mem_.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (mem_.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
    throw VulkanError(VK_ERROR_OUT_OF_DEVICE_MEMORY, "no memory type with the wanted properties");
}

}  // namespace seatmark::client
