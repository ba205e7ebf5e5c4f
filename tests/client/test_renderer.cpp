// The renderer on the real Vulkan device of this machine (lavapipe on CI),
// with the validation layer on.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "client/interaction.h"
#include "client/renderer.h"
#include "client/vk_instance.h"
#include "workloads/assembly.h"

using namespace seatmark;
using namespace seatmark::client;
using workloads::DisplayMode;

TEST_CASE("every display mode draws something different, with zero validation messages") {
    Instance instance(InstanceOptions{true, {}});
    DeviceInfo info = choose_device(instance.handle(), "");
    Device device(instance.handle(), info);
    workloads::AssemblySpec spec;
    spec.seed = 5;
    spec.triangle_budget = 10000;
    auto assembly = workloads::generate_assembly(spec);
    RenderSettings rs;
    rs.width = 160;
    rs.height = 120;
    rs.msaa = 4;
    Renderer renderer(device, assembly, rs);
    Interaction ui(assembly, DisplayMode::shaded_edges, 5);
    // Put the section plane mid-way so the cut shows.
    workloads::Segment sweep;
    sweep.kind = workloads::SegmentKind::section_sweep;
    sweep.rate = 0.5;
    ui.begin_segment(sweep, 0);
    ui.at(0.9);

    std::set<std::vector<uint8_t>> images;
    for (int m = 0; m < workloads::display_mode_count; ++m) {
        FrameParams p = ui.params(4.0f / 3.0f);
        p.mode = static_cast<DisplayMode>(m);
        // Highlight a base plate: a part that is always in view.
        for (const auto& part : assembly.parts)
            if (part.kind == workloads::PartKind::plate) {
                p.selected_part = part.id;
                break;
            }
        auto px = renderer.capture(p);
        CHECK(px.size() == 160u * 120u * 4u);
        images.insert(px);
    }
    CHECK(images.size() == static_cast<size_t>(workloads::display_mode_count));

    // Frames through the ring complete in order with GPU times when timestamps exist.
    std::vector<FrameDone> done;
    renderer.on_done([&](const FrameDone& d) { done.push_back(d); });
    for (uint64_t i = 0; i < 6; ++i) renderer.submit(ui.params(4.0f / 3.0f), 100 + i);
    renderer.drain();
    REQUIRE(done.size() == 6);
    for (uint64_t i = 0; i < 6; ++i) {
        CHECK(done[i].token == 100 + i);
        if (renderer.has_timestamps()) CHECK(done[i].gpu_ns > 0);
    }
    CHECK(instance.validation_messages() == 0);
}
