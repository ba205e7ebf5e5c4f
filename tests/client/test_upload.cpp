// upload_buffer on the real Vulkan device (lavapipe on CI, validation layer on): a buffer several
// staging chunks long arrives whole and in place, and the caller hears of each source range once
// it is copied (what lets a session hand a pack's pages back while a 1 GB model uploads).
#include <doctest/doctest.h>

#include <cstring>
#include <utility>
#include <vector>

#include "client/vk_check.h"
#include "client/vk_instance.h"
#include "client/vk_resources.h"

using namespace seatmark;
using namespace seatmark::client;

TEST_CASE("a buffer of several staging chunks uploads whole, each source range reported once it is copied") {
    Instance instance(InstanceOptions{true, {}});
    DeviceInfo info = choose_device(instance.handle(), "");
    Device device(instance.handle(), info);
    VkCommandPoolCreateInfo ci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    ci.queueFamilyIndex = device.queue_family();
    VkCommandPool p = VK_NULL_HANDLE;
    vk_check(vkCreateCommandPool(device.handle(), &ci, nullptr, &p), "vkCreateCommandPool");
    CommandPool pool(device.handle(), p);

    // Two and a half chunks: the last copy is a partial one.
    const size_t size = 2 * upload_chunk + upload_chunk / 2 + 12;
    std::vector<uint32_t> src(size / 4);
    for (size_t i = 0; i < src.size(); ++i) src[i] = uint32_t(i * 2654435761u);
    std::vector<std::pair<size_t, size_t>> ranges;
    const auto* base = reinterpret_cast<const uint8_t*>(src.data());
    Buffer target = upload_buffer(device, pool.get(), src.data(), size, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                  [&](const void* at, size_t n) { ranges.emplace_back(static_cast<const uint8_t*>(at) - base, n); });
    REQUIRE(ranges.size() == 3);
    CHECK(ranges[0] == std::pair<size_t, size_t>{0, upload_chunk});
    CHECK(ranges[1] == std::pair<size_t, size_t>{upload_chunk, upload_chunk});
    CHECK(ranges[2] == std::pair<size_t, size_t>{2 * upload_chunk, size - 2 * upload_chunk});

    Buffer back(device, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    one_shot(device, pool.get(), [&](VkCommandBuffer cb) {
        VkBufferCopy region{0, 0, size};
        vkCmdCopyBuffer(cb, target.get(), back.get(), 1, &region);
    });
    CHECK(std::memcmp(back.map(), src.data(), size) == 0);

    // An empty buffer needs no staging and reports nothing.
    ranges.clear();
    Buffer none = upload_buffer(device, pool.get(), nullptr, 0, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                [&](const void* at, size_t n) { ranges.emplace_back(static_cast<const uint8_t*>(at) - base, n); });
    CHECK(ranges.empty());
    CHECK(instance.validation_messages() == 0);
}
