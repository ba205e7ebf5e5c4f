// Closed meshes, feature edges, render form, and the solid primitives the generator builds on.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "workloads/mesh.h"
#include "workloads/primitives.h"

using namespace seatmark::workloads;
namespace prim = seatmark::workloads::prim;

namespace {

Mesh unit_cube() { return prim::box({0, 0, 0}, {1, 1, 1}); }

// A closed cylinder: radius 1, height 2, n segments.
Mesh cylinder(int n) { return prim::lathe({{0, 0}, {1, 0}, {1, 2}, {0, 2}}, n); }

void check_solid(const Mesh& m, const char* what) {
    INFO(what);
    CHECK(!m.triangles.empty());
    CHECK(is_closed(m));
    CHECK(prim::signed_volume(m) > 0);  // counter-clockwise seen from outside
}

}  // namespace

TEST_CASE("cube: closed, 12 feature edges at 30 deg, outward") {
    const Mesh cube = unit_cube();
    CHECK(cube.positions.size() == 8);
    CHECK(cube.triangles.size() == 36);
    CHECK(is_closed(cube));
    CHECK(prim::signed_volume(cube) == doctest::Approx(1.0));
    const auto edges = feature_edges(cube, 30);
    CHECK(edges.size() == 12);
    for (const auto& [a, b] : edges) {
        CHECK(a < b);
        // A cube edge joins two corners that differ in exactly one coordinate.
        const Vec3& p = cube.positions[a];
        const Vec3& q = cube.positions[b];
        int differ = 0;
        for (int k = 0; k < 3; ++k) differ += p[k] != q[k];
        CHECK(differ == 1);
    }
    CHECK(std::is_sorted(edges.begin(), edges.end()));
    // A crease angle above 90 deg leaves nothing.
    CHECK(feature_edges(cube, 91).empty());
}

TEST_CASE("open mesh: not closed, boundary edges reported") {
    Mesh cube = unit_cube();
    const uint32_t a = cube.triangles[0], b = cube.triangles[1], c = cube.triangles[2];
    cube.triangles.erase(cube.triangles.begin(), cube.triangles.begin() + 3);
    CHECK_FALSE(is_closed(cube));
    const auto edges = feature_edges(cube, 30);
    auto has = [&](uint32_t x, uint32_t y) {
        return std::find(edges.begin(), edges.end(), std::make_pair(std::min(x, y), std::max(x, y))) != edges.end();
    };
    CHECK(has(a, b));
    CHECK(has(b, c));
    CHECK(has(c, a));  // includes the face diagonal, now a boundary edge
    CHECK(edges.size() == 13);

    // Flipped triangle: every edge used twice but once in the wrong direction.
    Mesh flipped = unit_cube();
    std::swap(flipped.triangles[1], flipped.triangles[2]);
    CHECK_FALSE(is_closed(flipped));
}

TEST_CASE("cylinder: side seams are not feature edges, cap rims are") {
    for (int n : {16, 32, 64}) {
        const Mesh cyl = cylinder(n);
        CHECK(is_closed(cyl));
        CHECK(prim::signed_volume(cyl) > 0);
        const auto edges = feature_edges(cyl, 30);
        CHECK(edges.size() == size_t(2 * n));
        for (const auto& [a, b] : edges) {
            const Vec3& p = cyl.positions[a];
            const Vec3& q = cyl.positions[b];
            CHECK(p[1] == q[1]);  // horizontal: a rim segment, never a vertical seam
            CHECK(std::hypot(p[0], p[2]) == doctest::Approx(1.0));
            CHECK(std::hypot(q[0], q[2]) == doctest::Approx(1.0));
        }
    }
}

TEST_CASE("weld merges coincident and near vertices, keeps far ones") {
    // A cube as 6 separate quads: 24 vertices, open until welded.
    Mesh soup;
    const Mesh cube = unit_cube();
    for (size_t t = 0; t < cube.triangles.size(); t += 3) {
        const uint32_t base = uint32_t(soup.positions.size());
        for (int k = 0; k < 3; ++k) {
            Vec3 p = cube.positions[cube.triangles[t + size_t(k)]];
            p[0] += (k == 1 ? 4e-6f : 0.f);  // jitter below the tolerance
            soup.positions.push_back(p);
        }
        soup.triangles.insert(soup.triangles.end(), {base, base + 1, base + 2});
    }
    CHECK(soup.positions.size() == 36);
    CHECK_FALSE(is_closed(soup));
    const Mesh w = weld(soup);
    CHECK(w.positions.size() == 8);
    CHECK(w.triangles.size() == 36);
    CHECK(is_closed(w));
    CHECK(feature_edges(w, 30).size() == 12);

    // Beyond the tolerance, vertices stay apart.
    Mesh two;
    two.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.001f, 0, 0}};
    two.triangles = {0, 1, 2, 3, 1, 2};
    CHECK(weld(two, 1e-5f).positions.size() == 4);
    CHECK(weld(two, 2e-3f).positions.size() == 3);
    CHECK(weld(two, 2e-3f).triangles == std::vector<uint32_t>{0, 1, 2, 0, 1, 2});
    // Triangles collapsed by the merge are dropped.
    Mesh sliver;
    sliver.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.001f, 0, 0}};
    sliver.triangles = {0, 1, 2, 0, 3, 2};
    CHECK(weld(sliver, 2e-3f).triangles == std::vector<uint32_t>{0, 1, 2});

    // Tolerance on both sides of a grid cell boundary still merges.
    Mesh edge;
    edge.positions = {{0.99999f, 0, 0}, {1.00001f, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    edge.triangles = {0, 2, 3, 1, 3, 2};
    CHECK(weld(edge, 1e-4f).positions.size() == 3);
}

TEST_CASE("append keeps several solids closed") {
    Mesh m = unit_cube();
    append(m, prim::box({2, 0, 0}, {3, 2, 1}));
    CHECK(m.positions.size() == 16);
    CHECK(is_closed(m));
    CHECK(prim::signed_volume(m) == doctest::Approx(3.0));
    CHECK(feature_edges(m, 30).size() == 24);
}

TEST_CASE("to_render_mesh of a cube: 24 vertices, 36 indices, 24 edge indices") {
    const RenderMesh r = to_render_mesh(unit_cube(), 30);
    CHECK(r.vertices.size() == 24);
    CHECK(r.indices.size() == 36);
    CHECK(r.edges.size() == 24);
    for (const Vertex& v : r.vertices) {
        // Flat faces: each normal is an axis direction.
        const float len = std::fabs(v.normal[0]) + std::fabs(v.normal[1]) + std::fabs(v.normal[2]);
        CHECK(len == doctest::Approx(1.0f));
    }
    for (size_t t = 0; t < r.indices.size(); t += 3) {
        // The vertex normal agrees with the face it is used by.
        const Vertex& a = r.vertices[r.indices[t]];
        const Vertex& b = r.vertices[r.indices[t + 1]];
        const Vertex& c = r.vertices[r.indices[t + 2]];
        const float e1[3] = {b.position[0] - a.position[0], b.position[1] - a.position[1], b.position[2] - a.position[2]};
        const float e2[3] = {c.position[0] - a.position[0], c.position[1] - a.position[1], c.position[2] - a.position[2]};
        const float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        CHECK(n[0] * a.normal[0] + n[1] * a.normal[1] + n[2] * a.normal[2] > 0.5f);
    }
    for (uint32_t e : r.edges) CHECK(e < r.vertices.size());
    CHECK(r.bounds.min == Vec3{0, 0, 0});
    CHECK(r.bounds.max == Vec3{1, 1, 1});
}

TEST_CASE("to_render_mesh of a cylinder: smooth sides, split rims") {
    const int n = 32;
    const RenderMesh r = to_render_mesh(cylinder(n), 30);
    // Rim vertices: one side copy (radial normal) and one cap copy each; poles once.
    CHECK(r.vertices.size() == size_t(4 * n + 2));
    CHECK(r.indices.size() == cylinder(n).triangles.size());
    CHECK(r.edges.size() == size_t(4 * n));
    int radial = 0;
    for (const Vertex& v : r.vertices) {
        if (std::fabs(v.normal[1]) < 1e-6f) {
            ++radial;
            CHECK(v.normal[0] * v.position[0] + v.normal[2] * v.position[2] == doctest::Approx(1.0f).epsilon(1e-3));
        }
    }
    CHECK(radial == 2 * n);
}

TEST_CASE("bounds_of") {
    const Bounds b = bounds_of(prim::box({-1, 2, -3}, {4, 5, 6}));
    CHECK(b.min == Vec3{-1, 2, -3});
    CHECK(b.max == Vec3{4, 5, 6});
}

TEST_CASE("sincos_turns matches libm closely and is exact at quarter turns") {
    for (int k = -100; k <= 100; ++k) {
        const double t = k / 37.0;
        double s, c;
        prim::sincos_turns(t, s, c);
        CHECK(std::fabs(s - std::sin(t * 2 * prim::pi)) < 1e-14);
        CHECK(std::fabs(c - std::cos(t * 2 * prim::pi)) < 1e-14);
    }
    double s, c;
    prim::sincos_turns(0.25, s, c);
    CHECK(s == 1.0);
    CHECK(c == 0.0);
    prim::sincos_turns(0.5, s, c);
    CHECK(s == 0.0);
    CHECK(c == -1.0);
}

TEST_CASE("ear clipping of a non-convex polygon") {
    // An L: area 3 (unit squares), 6 corners.
    const std::vector<std::array<double, 2>> l = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
    for (bool reversed : {false, true}) {
        auto poly = l;
        if (reversed) std::reverse(poly.begin(), poly.end());
        const auto tri = prim::ear_clip(poly);
        REQUIRE(tri.size() == 12);
        double area = 0;
        for (size_t i = 0; i < tri.size(); i += 3) {
            const auto& a = poly[tri[i]];
            const auto& b = poly[tri[i + 1]];
            const auto& c = poly[tri[i + 2]];
            const double a2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
            CHECK(a2 > 0);  // counter-clockwise
            area += a2 / 2;
        }
        CHECK(area == doctest::Approx(3.0));
        const Mesh m = prim::extrude_xy(poly, 0, 0.5);
        check_solid(m, reversed ? "L clockwise" : "L counter-clockwise");
        CHECK(prim::signed_volume(m) == doctest::Approx(1.5));
    }
}

TEST_CASE("every primitive is a closed, outward solid") {
    check_solid(unit_cube(), "box");
    check_solid(cylinder(16), "lathe");
    check_solid(prim::lathe({{0, 0}, {5, 0}, {5, 3}, {8, 3}, {8, 6}, {4, 6}, {4, 10}, {0, 10}}, 24), "stepped shaft");
    check_solid(prim::washer(4.3, 8, 1.6, 16), "washer");
    check_solid(prim::revolve_ring({{3, 0}, {10, 0}, {10, 2}, {5, 2}, {5, 8}, {3, 8}}, 32), "flanged ring");
    check_solid(prim::ring_extrude(prim::circle(10, 24), prim::circle(4, 24), 0, 5), "ring");
    check_solid(prim::ring_extrude(prim::hexagon(13, 6), {}, 0, 5), "hex prism");
    for (int n : {18, 24, 48}) {
        check_solid(prim::hex_nut(13, 6.5, 4.1, n, true), "nut chamfered");
        check_solid(prim::hex_nut(13, 6.5, 4.1, n, false), "nut plain");
        check_solid(prim::hex_bolt(8, 13, 5.3, 30, n, 16), "bolt");
    }
    check_solid(prim::hex_bolt(8, 13, 5.3, 30, 6, 16), "bolt plain head");
    for (int detail = 0; detail <= 3; ++detail) {
        const prim::Loop outline = prim::gear_outline(23, 2, detail);
        CHECK(outline.size() == size_t(23 * prim::gear_samples_per_tooth(detail)));
        check_solid(prim::ring_extrude(outline, prim::at_radius(outline, 8), -5, 5), "gear");
    }
    for (double depth : {5.0, 20.0, 30.0, 80.0}) {  // 30 = the corner exactly on a sample at n=16
        for (int n : {16, 40, 96}) {
            const prim::Loop o = prim::pillow_outline(30, depth, n);
            CHECK(o.size() >= size_t(n));
            check_solid(prim::ring_extrude(o, prim::at_radius(o, 12), -10, 10), "pillow housing");
        }
    }
    for (int n : {8, 16, 24, 48, 96}) {
        std::vector<uint8_t> holes = {1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0};
        const Mesh plate = prim::plate_with_holes(4, 3, 40, 12, holes, 4.5, n);
        check_solid(plate, "plate");
        // Volume: 160 x 120 x 12 less 5 (polygonal) holes.
        const double full = 160.0 * 120 * 12;
        CHECK(prim::signed_volume(plate) < full);
        CHECK(prim::signed_volume(plate) > full - 5 * prim::pi * 4.5 * 4.5 * 12 - 1);
        // Feature edges: the outline (top and bottom perimeter, split at the side samples,
        // plus 4 vertical corners) and two rims per hole; never the cell boundaries on the flat
        // faces. At n = 8 the hole walls are octagons whose 45 deg seams are edges too.
        const auto edges = feature_edges(plate, 30);
        const size_t perimeter_sides = 2 * (4 + 3);
        size_t expect = 2 * perimeter_sides * size_t(n / 4) + 4 + 5 * 2 * size_t(n);
        if (n == 8) expect += 5 * size_t(n);
        CHECK(edges.size() == expect);
    }
    check_solid(prim::plate_with_holes(1, 1, 30, 10, {0}, 3, 16), "plate one cell");
}

TEST_CASE("plate without holes: feature edges only on the 12 lines of its box") {
    const Mesh plate = prim::plate_with_holes(5, 4, 30, 10, std::vector<uint8_t>(20, 0), 3, 32);
    CHECK(is_closed(plate));
    const Bounds b = bounds_of(plate);
    CHECK(b.min == Vec3{0, -10, 0});
    CHECK(b.max == Vec3{150, 0, 120});
    const auto edges = feature_edges(plate, 30);
    CHECK(edges.size() == 2 * 18 * 8 + 4);
    auto extremes = [&](const Vec3& p) {
        int k = 0;
        for (int a = 0; a < 3; ++a) k += (p[a] == b.min[a] || p[a] == b.max[a]);
        return k;
    };
    for (const auto& [i, j] : edges) {
        CHECK(extremes(plate.positions[i]) >= 2);
        CHECK(extremes(plate.positions[j]) >= 2);
    }
}

TEST_CASE("transforms are rigid and keep orientation") {
    const prim::Xf x = prim::Xf::translate(5, 6, 7) * prim::Xf::rotate_y(0.3) * prim::Xf::rotate_x(0.2);
    const Mesh m = prim::transformed(cylinder(24), x);
    CHECK(is_closed(m));
    CHECK(prim::signed_volume(m) == doctest::Approx(prim::signed_volume(cylinder(24))));
    const auto mat = x.matrix();
    CHECK(mat[12] == 5.0f);
    CHECK(mat[13] == 6.0f);
    CHECK(mat[14] == 7.0f);
    CHECK(mat[15] == 1.0f);
}
