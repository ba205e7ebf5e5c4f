#include "client/software_renderer.h"

#include <algorithm>
#include <cctype>

namespace seatmark::client {

namespace {

bool contains_ci(const std::string& s, const std::string& word) {
    auto it = std::search(s.begin(), s.end(), word.begin(), word.end(),
                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    return it != s.end();
}

}  // namespace

std::string software_renderer_reason(VkPhysicalDeviceType type, VkDriverId driver, const std::string& name) {
    if (driver == VK_DRIVER_ID_MESA_LLVMPIPE) return "Mesa llvmpipe driver";
    if (driver == VK_DRIVER_ID_GOOGLE_SWIFTSHADER) return "SwiftShader driver";
    // Names are matched too: a layered driver (Dozen over WARP, a remoting layer) reports the
    // type and driver id of the layer, not of what draws.
    if (contains_ci(name, "microsoft basic render")) return "Microsoft Basic Render Driver (WARP)";
    if (contains_ci(name, "microsoft") && contains_ci(name, "warp")) return "Microsoft WARP";
    if (contains_ci(name, "llvmpipe") || contains_ci(name, "lavapipe")) return "llvmpipe";
    if (contains_ci(name, "swiftshader")) return "SwiftShader";
    if (type == VK_PHYSICAL_DEVICE_TYPE_CPU) return "CPU device type";
    return "";
}

}  // namespace seatmark::client
