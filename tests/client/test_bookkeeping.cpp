#include <doctest/doctest.h>

#include <vector>

#include "client/frame_log.h"
#include "client/vk_check.h"
#include "common/exit_codes.h"

using namespace seatmark;
using namespace seatmark::client;

TEST_CASE("Vulkan faults map to distinct exit codes") {
    CHECK(VulkanError(VK_ERROR_DEVICE_LOST, "x").exit_code() == exit_code::device_lost);
    CHECK(VulkanError(VK_ERROR_OUT_OF_DEVICE_MEMORY, "x").exit_code() == exit_code::out_of_memory);
    CHECK(VulkanError(VK_ERROR_OUT_OF_HOST_MEMORY, "x").exit_code() == exit_code::out_of_memory);
    CHECK(VulkanError(VK_ERROR_INITIALIZATION_FAILED, "x").exit_code() == exit_code::vulkan_error);
    CHECK(std::string(VulkanError(VK_ERROR_DEVICE_LOST, "vkQueueSubmit").what()) ==
          "vkQueueSubmit failed: VK_ERROR_DEVICE_LOST");
}

TEST_CASE("input clock: the first frame after an event shows it, later events wait for the next frame") {
    // Events at 1000, 1010, 1020, ... up to 1100 (exclusive).
    InputClock c{1000, 1100, 10, 1000};
    CHECK(c.take(999) == -1);   // before the segment: nothing to show
    CHECK(c.take(1000) == 1000);
    CHECK(c.take(1005) == -1);  // no new event since
    CHECK(c.take(1034) == 1010);  // 1010, 1020, 1030 shown together; latency from the oldest
    CHECK(c.take(1039) == -1);
    CHECK(c.take(1040) == 1040);
    CHECK(c.take(5000) == 1050);  // segment over: the remaining events are shown once
    CHECK(c.take(6000) == -1);

    InputClock instant{2000, 2001, 0, 2000};  // a mode switch: one event
    CHECK(instant.take(2500) == 2000);
    CHECK(instant.take(2600) == -1);
}

TEST_CASE("frame log emits each frame once, in order, after both its submit and its fence") {
    std::vector<FrameRecord> out;
    FrameLog log([&](const FrameRecord& r) { out.push_back(r); });
    FrameRecord a;
    a.t_begin_ns = 100;
    uint64_t s0 = log.begin(a, 90);
    uint64_t s1 = log.begin(a, -1);
    CHECK(s0 == 0);
    CHECK(s1 == 1);
    log.complete({1, 500, 40});  // frame 1's fence before frame 0 is done: held back
    CHECK(out.empty());
    log.set_cpu(1, 7);
    CHECK(out.empty());
    log.complete({0, 300, 30});
    CHECK(out.empty());  // frame 0 still lacks its cpu time
    log.set_cpu(0, 5);
    REQUIRE(out.size() == 2);
    CHECK(out[0].seq == 0);
    CHECK(out[0].cpu_ns == 5);
    CHECK(out[0].gpu_ns == 30);
    CHECK(out[0].latency_ns == 300 - 90);
    CHECK(out[1].seq == 1);
    CHECK(out[1].latency_ns == -1);
    CHECK(log.emitted() == 2);
}

TEST_CASE("frame log sets present-to-present intervals at emission, none at a stretch's first frame") {
    SUBCASE("headless: a frame is presented when its fence signals") {
        FrameLog log;
        FrameRecord a;
        a.flags = frame_flag_stretch_start;
        log.begin(a, -1);
        FrameRecord b;
        log.begin(b, -1);
        log.begin(a, -1);  // a new stretch after a pause
        for (uint64_t i = 0; i < 3; ++i) log.set_cpu(i, 1);
        log.complete({0, 1000, -1});
        log.complete({1, 1700, -1});
        log.complete({2, 9000, -1});
        auto f = log.take();
        REQUIRE(f.size() == 3);
        CHECK(f[0].interval_ns == -1);
        CHECK(f[1].interval_ns == 700);
        CHECK(f[1].t_present_ns == 1700);
        CHECK(f[2].interval_ns == -1);  // never across the pause
    }
    SUBCASE("window: the present time comes from vkQueuePresentKHR, not the fence") {
        std::vector<FrameRecord> out;
        FrameLog log([&](const FrameRecord& r) { out.push_back(r); }, /*present_at_fence=*/false);
        FrameRecord a;
        a.flags = frame_flag_stretch_start;
        log.begin(a, -1);
        log.begin(FrameRecord{}, -1);
        log.set_cpu(0, 1);
        log.set_cpu(1, 1);
        log.complete({0, 5000, -1});
        log.complete({1, 6000, -1});
        CHECK(out.empty());  // not presented yet
        log.set_present(0, 4000);
        log.set_present(1, 4600);
        REQUIRE(out.size() == 2);
        CHECK(out[0].t_present_ns == 4000);
        CHECK(out[1].interval_ns == 600);
    }
}
