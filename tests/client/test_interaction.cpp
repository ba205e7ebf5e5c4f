#include <doctest/doctest.h>

#include <glm/glm.hpp>

#include "client/camera.h"
#include "client/interaction.h"
#include "workloads/assembly.h"

using namespace seatmark;
using namespace seatmark::client;
using workloads::DisplayMode;
using workloads::SegmentKind;

namespace {
workloads::Assembly small_assembly() {
    workloads::AssemblySpec spec;
    spec.seed = 3;
    spec.triangle_budget = 10000;
    return workloads::generate_assembly(spec);
}
workloads::Segment seg(SegmentKind k, double rate) {
    workloads::Segment s;
    s.kind = k;
    s.rate = rate;
    s.duration_s = 1;
    return s;
}
}  // namespace

TEST_CASE("the home camera frames the assembly: its centre projects to the middle of the image") {
    auto a = small_assembly();
    Camera c = Camera::framing(a.bounds);
    glm::vec4 clip = c.projection(4.0f / 3.0f) * c.view() * glm::vec4(c.target, 1);
    glm::vec3 ndc = glm::vec3(clip) / clip.w;
    CHECK(ndc.x == doctest::Approx(0).epsilon(1e-4));
    CHECK(ndc.y == doctest::Approx(0).epsilon(1e-4));
    CHECK(ndc.z > 0);
    CHECK(ndc.z < 1);
    // Every bounds corner is in front of the camera and inside depth range.
    for (int i = 0; i < 8; ++i) {
        glm::vec3 p(i & 1 ? a.bounds.max[0] : a.bounds.min[0], i & 2 ? a.bounds.max[1] : a.bounds.min[1],
                    i & 4 ? a.bounds.max[2] : a.bounds.min[2]);
        glm::vec4 q = c.projection(4.0f / 3.0f) * c.view() * glm::vec4(p, 1);
        CHECK(q.w > 0);
        CHECK(q.z / q.w >= 0);
        CHECK(q.z / q.w <= 1);
    }
}

TEST_CASE("orbit depends on time, not on how many frames were drawn") {
    auto a = small_assembly();
    Interaction x(a, DisplayMode::shaded_edges, 1), y(a, DisplayMode::shaded_edges, 1);
    x.begin_segment(seg(SegmentKind::orbit, 90), 0);
    y.begin_segment(seg(SegmentKind::orbit, 90), 0);
    for (int i = 1; i <= 100; ++i) x.at(i * 0.01);  // 100 frames
    y.at(1.0);                                       // one frame
    CHECK(x.camera().yaw_deg == doctest::Approx(y.camera().yaw_deg));
    CHECK(y.camera().yaw_deg == doctest::Approx(y.home().yaw_deg + 90));
    x.end_segment(1.0);
    // The next segment starts where this one ended.
    x.begin_segment(seg(SegmentKind::orbit, 90), 1);
    x.at(0);
    CHECK(x.camera().yaw_deg == doctest::Approx(y.home().yaw_deg + 90));
}

TEST_CASE("zoom and pan stay bounded however long a script loops") {
    auto a = small_assembly();
    Interaction x(a, DisplayMode::shaded_edges, 1);
    x.begin_segment(seg(SegmentKind::zoom, 10), 0);
    x.at(100);
    CHECK(x.camera().distance >= x.home().distance * 0.15f - 1e-3f);
    x.begin_segment(seg(SegmentKind::zoom, 0.1), 0);
    x.at(100);
    CHECK(x.camera().distance <= x.home().distance * 3.0f + 1e-3f);
    x.begin_segment(seg(SegmentKind::pan, 5), 0);
    x.at(100);
    for (int i = 0; i < 3; ++i) {
        float ext = a.bounds.max[i] - a.bounds.min[i];
        CHECK(x.camera().target[i] <= a.bounds.max[i] + 0.25f * ext + 1e-3f);
        CHECK(x.camera().target[i] >= a.bounds.min[i] - 0.25f * ext - 1e-3f);
    }
}

TEST_CASE("section sweeps show section mode only while they run, selections pick real parts") {
    auto a = small_assembly();
    Interaction x(a, DisplayMode::shaded_edges, 7);
    x.begin_segment(seg(SegmentKind::section_sweep, 0.5), 0);
    x.at(0.2);
    CHECK(x.mode() == DisplayMode::section);
    float off1 = x.params(1).section_offset;
    x.at(0.8);
    float off2 = x.params(1).section_offset;
    CHECK(off1 != off2);
    CHECK(off1 >= a.bounds.min[0]);
    CHECK(off1 <= a.bounds.max[0]);
    x.end_segment(1);
    CHECK(x.mode() == DisplayMode::shaded_edges);

    workloads::Segment sel = seg(SegmentKind::select, 0);
    CHECK(x.apply_instant(sel));
    CHECK(x.mode() == DisplayMode::selection);
    uint32_t first = x.params(1).selected_part;
    bool found = false;
    for (auto& p : a.parts) found |= p.id == first;
    CHECK(found);
    x.apply_instant(sel);
    x.apply_instant(sel);
    CHECK(x.params(1).selected_part != first);  // later selections move on (3 picks among many parts)

    workloads::Segment m = seg(SegmentKind::mode, 0);
    m.to = DisplayMode::wireframe;
    CHECK(x.apply_instant(m));
    CHECK_FALSE(x.apply_instant(m));  // already in wireframe: no switch
}
