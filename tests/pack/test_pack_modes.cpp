// Every display mode draws a packed model correctly, checked in its pixels: a red and a blue cube
// (stored once, placed twice, coloured per part), rendered from the pack's mapping on the real
// Vulkan device with the validation layer on, framed on the pack's bounds as a session frames it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <vector>

#include "client/interaction.h"
#include "client/model_scene.h"
#include "client/renderer.h"
#include "client/vk_instance.h"
#include "pack/pack_reader.h"
#include "pack/pack_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::client;
using workloads::DisplayMode;

namespace {

workloads::RenderMesh cube(float s) {
    workloads::Mesh m;
    for (int i = 0; i < 8; ++i) m.positions.push_back({(i & 1) ? s : 0, (i & 2) ? s : 0, (i & 4) ? s : 0});
    const uint32_t f[] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    m.triangles.assign(std::begin(f), std::end(f));
    return workloads::to_render_mesh(m, 30);
}

struct Counts {
    size_t object = 0, red = 0, blue = 0, orange = 0, edge = 0;
};

// Pixels that differ from their row's background (a vertical gradient: the left edge is
// background), sorted by what drew them.
Counts classify(const std::vector<uint8_t>& px, uint32_t w, uint32_t h) {
    Counts c;
    for (uint32_t y = 0; y < h; ++y) {
        const uint8_t* row = px.data() + size_t(y) * w * 4;
        for (uint32_t x = 0; x < w; ++x) {
            const uint8_t* p = row + x * 4;
            const int r = p[0], g = p[1], b = p[2];
            if (std::abs(r - row[0]) + std::abs(g - row[1]) + std::abs(b - row[2]) <= 24) continue;
            ++c.object;
            const int mx = std::max({r, g, b}), mn = std::min({r, g, b});
            if (mx - mn <= 16 && mx < 100) ++c.edge;                          // the near-black edge colour
            else if (r > 40 && g * 10 < r * 2 && b * 10 < r * 2) ++c.red;    // pure red, shaded
            else if (b > 40 && r * 10 < b * 3 && g * 10 < b * 3) ++c.blue;   // pure blue, shaded
            else if (r > 60 && g * 10 > r * 3 && g < r && b * 10 < r * 4) ++c.orange;  // the selection highlight
        }
    }
    return c;
}

}  // namespace

TEST_CASE("every display mode draws a pack correctly: fill colours per part, edges, hidden lines, the section cut, the selection") {
    test::TempDir dir;
    pack::PackContents c;
    c.meshes = {cube(10)};
    for (uint32_t k = 0; k < 2; ++k) {
        pack::PackPartIn p;
        p.mesh = 0;
        p.transform[12] = float(15 * k);  // side by side along x: red at 0..10, blue at 15..25
        p.id = k + 1;
        p.name = k ? "blue" : "red";
        p.rgba = k ? 0xffff0000u : 0xff0000ffu;  // R in the low byte
        c.parts.push_back(p);
    }
    pack::write_pack(c, dir.file("cubes.smpack"));
    pack::PackFile pf(dir.file("cubes.smpack"));
    REQUIRE(pf.meshes().size() == 1);  // stored once, drawn twice

    Instance instance(InstanceOptions{true, {}});
    Device device(instance.handle(), choose_device(instance.handle(), ""));
    RenderSettings rs;
    rs.width = 200;
    rs.height = 150;
    rs.msaa = 1;  // pixels of one colour each: no edge blending to classify
    Renderer renderer(device, SceneInput(pf), rs);
    const auto outline = pack_outline(pf);
    const float aspect = float(rs.width) / float(rs.height);
    Interaction home(outline, DisplayMode::shaded_edges, 1, aspect);

    std::map<DisplayMode, Counts> seen;
    for (int m = 0; m < workloads::display_mode_count; ++m) {
        FrameParams p = home.params(aspect);
        p.mode = static_cast<DisplayMode>(m);
        p.section_offset = 5;  // through the middle of the red cube; the blue one is wholly beyond it
        p.selected_part = 2;   // the blue cube
        const auto px = renderer.capture(p);
        REQUIRE(px.size() == size_t(rs.width) * rs.height * 4);
        seen[p.mode] = classify(px, rs.width, rs.height);
        const Counts& k = seen[p.mode];
        MESSAGE(to_string(p.mode) << ": object " << k.object << ", red " << k.red << ", blue " << k.blue << ", orange "
                                  << k.orange << ", edge " << k.edge);
    }
    const Counts &shaded = seen[DisplayMode::shaded], &edges = seen[DisplayMode::shaded_edges],
                 &wire = seen[DisplayMode::wireframe], &hidden = seen[DisplayMode::hidden_line],
                 &section = seen[DisplayMode::section], &selection = seen[DisplayMode::selection];
    const size_t total = size_t(rs.width) * rs.height;
    // Shaded: both cubes, each in its own colour, framed (a sensible share of the image), no edges.
    CHECK(shaded.object > total / 20);
    CHECK(shaded.object < total * 9 / 10);
    CHECK(shaded.red > shaded.object / 5);
    CHECK(shaded.blue > shaded.object / 5);
    CHECK(shaded.edge < shaded.object / 100);
    // Shaded with edges: the same silhouette, with the feature edges drawn on it.
    CHECK(edges.object >= shaded.object * 95 / 100);
    CHECK(edges.object <= shaded.object * 105 / 100);
    CHECK(edges.edge > 40);
    CHECK(edges.red > 0);
    CHECK(edges.blue > 0);
    // Wireframe: edges only, no fill, every edge (hidden ones too).
    CHECK(wire.red == 0);
    CHECK(wire.blue == 0);
    CHECK(wire.edge > 40);
    CHECK(wire.object < shaded.object / 3);
    // Hidden line: edges only, the hidden ones removed by the depth-only fill.
    CHECK(hidden.red == 0);
    CHECK(hidden.blue == 0);
    CHECK(hidden.edge > 40);
    CHECK(hidden.edge < wire.edge);
    // Section at x = 5: the blue cube is cut away entirely, the red one in part.
    CHECK(section.blue == 0);
    CHECK(section.red > 0);
    CHECK(section.object < edges.object);
    // Selection of the blue cube: it is drawn in the highlight, the red one as before.
    CHECK(selection.blue < edges.blue / 10);
    CHECK(selection.orange > edges.blue / 2);
    CHECK(selection.red >= edges.red * 9 / 10);
    CHECK(instance.validation_messages() == 0);
}
