#include "client/vk_instance.h"

#include <cstdio>
#include <cstring>

#include "client/vk_check.h"
#include "common/errors.h"

namespace seatmark::client {

namespace {

bool has_layer(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    for (auto& l : layers)
        if (std::strcmp(l.layerName, name) == 0) return true;
    return false;
}

constexpr const char* validation_layer = "VK_LAYER_KHRONOS_validation";

}  // namespace

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT,
                                                    const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                    void* user) {
    auto* self = static_cast<Instance*>(user);
    self->messages_.fetch_add(1);
    const char* level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
    std::fprintf(stderr, "seatmark: validation %s: %s\n", level, data && data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

Instance::Instance(const InstanceOptions& opts) {
    std::vector<const char*> layers;
    std::vector<const char*> extensions = opts.extensions;
    if (opts.validate) {
        if (!has_layer(validation_layer))
            throw InputError(std::string("--validate: the Vulkan validation layer ") + validation_layer +
                             " is not installed; install vulkan-validationlayers (Debian) or drop --validate");
        layers.push_back(validation_layer);
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "seatmark";
    app.applicationVersion = VK_MAKE_VERSION(0, 1, 0);
    app.pEngineName = "seatmark";
    app.apiVersion = VK_API_VERSION_1_2;

    VkDebugUtilsMessengerCreateInfoEXT dbg{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    dbg.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    dbg.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    dbg.pfnUserCallback = &Instance::on_message;
    dbg.pUserData = this;

    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ci.ppEnabledLayerNames = layers.data();
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    // Messages during vkCreateInstance/vkDestroyInstance go to the same counter.
    if (opts.validate) ci.pNext = &dbg;

    VkResult r = vkCreateInstance(&ci, nullptr, &instance_);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED)
        throw InputError(std::string("no Vulkan device: vkCreateInstance returned ") + to_string(r) +
                         "; install a GPU driver or mesa-vulkan-drivers (lavapipe), and check VK_ICD_FILENAMES");
    vk_check(r, "vkCreateInstance");

    if (opts.validate) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
        if (create) vk_check(create(instance_, &dbg, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
    }
}

Instance::~Instance() {
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
}

}  // namespace seatmark::client
