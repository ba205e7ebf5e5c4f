#include <doctest/doctest.h>

#include "client/software_renderer.h"

using seatmark::client::software_renderer_reason;

TEST_CASE("software renderers are caught by driver, by name through layers, and by device type") {
    // lavapipe as Linux (and Wine's winevulkan) reports it.
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_CPU, VK_DRIVER_ID_MESA_LLVMPIPE,
                                   "llvmpipe (LLVM 15.0.6, 256 bits)") == "Mesa llvmpipe driver");
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_CPU, VK_DRIVER_ID_GOOGLE_SWIFTSHADER,
                                   "SwiftShader Device (Subzero)") == "SwiftShader driver");
    // Dozen (Mesa's Vulkan on D3D12) over WARP claims an integrated GPU: the name gives it away.
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, VK_DRIVER_ID_MESA_DOZEN,
                                   "Microsoft Basic Render Driver") == "Microsoft Basic Render Driver (WARP)");
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_OTHER, VK_DRIVER_ID_MESA_DOZEN, "Microsoft WARP Adapter") ==
          "Microsoft WARP");
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VkDriverId(0), "LLVMPIPE remoted") == "llvmpipe");
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_CPU, VkDriverId(0), "some CPU device") == "CPU device type");
}

TEST_CASE("hardware GPUs are not software renderers") {
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_DRIVER_ID_NVIDIA_PROPRIETARY,
                                   "NVIDIA RTX PRO 6000 Blackwell Server Edition")
              .empty());
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_DRIVER_ID_NVIDIA_PROPRIETARY, "NVIDIA A10-24Q")
              .empty());
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS,
                                   "Intel(R) UHD Graphics 770")
              .empty());
    // "warp" alone in a hardware name (a made-up product) is not WARP.
    CHECK(software_renderer_reason(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_DRIVER_ID_AMD_PROPRIETARY, "Warpstation 9000")
              .empty());
}
