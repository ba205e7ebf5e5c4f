// The procedural CAD assembly: budgets, closed solids, determinism, instancing, bounds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "workloads/assembly.h"
#include "workloads/primitives.h"

using namespace seatmark::workloads;

namespace {

// Render meshes split vertices at creases; welding exact duplicates back gives the solid.
Mesh solid_of(const RenderMesh& r) {
    Mesh m;
    for (const Vertex& v : r.vertices) m.positions.push_back({v.position[0], v.position[1], v.position[2]});
    m.triangles = r.indices;
    return weld(m, 0.0f);
}

// Every connected piece of a closed mesh must enclose positive volume (faces point outwards).
bool every_solid_outward(const Mesh& m) {
    std::vector<uint32_t> parent(m.positions.size());
    for (uint32_t i = 0; i < parent.size(); ++i) parent[i] = i;
    auto find = [&](uint32_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    for (size_t t = 0; t < m.triangles.size(); t += 3) {
        parent[find(m.triangles[t])] = find(m.triangles[t + 1]);
        parent[find(m.triangles[t + 1])] = find(m.triangles[t + 2]);
    }
    std::map<uint32_t, Mesh> pieces;
    for (size_t t = 0; t < m.triangles.size(); t += 3) {
        Mesh& piece = pieces[find(m.triangles[t])];
        for (size_t k = 0; k < 3; ++k) {
            piece.triangles.push_back(uint32_t(piece.positions.size()));
            piece.positions.push_back(m.positions[m.triangles[t + k]]);
        }
    }
    for (const auto& [root, piece] : pieces)
        if (!(prim::signed_volume(piece) > 0)) return false;
    return !pieces.empty();
}

void check_assembly(const Assembly& a, uint64_t budget) {
    // Budget: within +-25 %, and the figure is what the parts really draw.
    CHECK(a.triangles >= budget * 3 / 4);
    CHECK(a.triangles <= budget * 5 / 4);
    uint64_t tris = 0, edges = 0;
    std::vector<int> uses(a.meshes.size(), 0);
    for (const Part& p : a.parts) {
        REQUIRE(p.mesh < a.meshes.size());
        tris += a.meshes[p.mesh].indices.size() / 3;
        edges += a.meshes[p.mesh].edges.size() / 2;
        ++uses[p.mesh];
    }
    CHECK(tris == a.triangles);
    CHECK(edges == a.edges);
    CHECK(a.edges > 0);

    // Every mesh used, every mesh a set of closed solids, indices in range.
    for (size_t i = 0; i < a.meshes.size(); ++i) {
        const RenderMesh& m = a.meshes[i];
        INFO("mesh " << i);
        CHECK(uses[i] > 0);
        CHECK(m.indices.size() % 3 == 0);
        CHECK(m.edges.size() % 2 == 0);
        for (uint32_t x : m.indices) REQUIRE(x < m.vertices.size());
        for (uint32_t x : m.edges) REQUIRE(x < m.vertices.size());
        const Mesh solid = solid_of(m);
        CHECK(is_closed(solid));
        CHECK(every_solid_outward(solid));
    }

    // Sorted by mesh; unique ids.
    CHECK(std::is_sorted(a.parts.begin(), a.parts.end(), [](const Part& x, const Part& y) { return x.mesh < y.mesh; }));
    std::set<uint32_t> ids;
    for (const Part& p : a.parts) ids.insert(p.id);
    CHECK(ids.size() == a.parts.size());

    // Looks like an assembly: many kinds, several colours, instanced fasteners.
    std::set<PartKind> kinds;
    std::set<uint32_t> colours;
    for (const Part& p : a.parts) {
        kinds.insert(p.kind);
        colours.insert(p.rgba);
    }
    CHECK(kinds.count(PartKind::plate) == 1);
    CHECK(kinds.count(PartKind::shaft) == 1);
    CHECK(kinds.count(PartKind::gear) == 1);
    CHECK(kinds.count(PartKind::bolt) == 1);
    CHECK(kinds.count(PartKind::washer) == 1);
    CHECK(kinds.size() >= 6);
    CHECK(colours.size() >= 4);
    CHECK(*std::max_element(uses.begin(), uses.end()) > 1);
    int instanced_bolts = 0;
    for (const Part& p : a.parts)
        if (p.kind == PartKind::bolt && uses[p.mesh] > 1) ++instanced_bolts;
    CHECK(instanced_bolts > 0);

    // Bounds contain every transformed vertex, and are tight to within a millimetre.
    Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
    for (const Part& p : a.parts) {
        const auto& M = p.transform;
        CHECK(M[15] == 1.0f);
        for (const Vertex& v : a.meshes[p.mesh].vertices) {
            for (int r = 0; r < 3; ++r) {
                const float w = M[r] * v.position[0] + M[4 + r] * v.position[1] + M[8 + r] * v.position[2] + M[12 + r];
                const float eps = 1e-4f * (1 + std::fabs(w));
                CHECK_MESSAGE(w >= a.bounds.min[r] - eps, "axis " << r);
                CHECK_MESSAGE(w <= a.bounds.max[r] + eps, "axis " << r);
                lo[r] = std::min(lo[r], w);
                hi[r] = std::max(hi[r], w);
            }
        }
    }
    for (int r = 0; r < 3; ++r) {
        CHECK(lo[r] - a.bounds.min[r] < 1.0f);
        CHECK(a.bounds.max[r] - hi[r] < 1.0f);
    }
    // Y up: plates at y = 0, things stand above them.
    CHECK(a.bounds.max[1] > 30.0f);
    CHECK(a.bounds.max[0] - a.bounds.min[0] > a.bounds.max[1] - a.bounds.min[1]);
}

}  // namespace

TEST_CASE("assemblies for several seeds and budgets") {
    for (uint64_t budget : {10000u, 20000u, 100000u}) {
        for (uint64_t seed : {1u, 2u, 3u, 42u}) {
            INFO("seed " << seed << " budget " << budget);
            AssemblySpec spec;
            spec.seed = seed;
            spec.triangle_budget = budget;
            const Assembly a = generate_assembly(spec);
            check_assembly(a, budget);
        }
    }
}

TEST_CASE("1M-triangle assembly") {
    AssemblySpec spec;
    spec.seed = 7;
    spec.triangle_budget = 1000000;
    const Assembly a = generate_assembly(spec);
    check_assembly(a, spec.triangle_budget);
    CHECK(a.parts.size() >= 1000);  // thousands of parts at this size
    std::set<PartKind> kinds;
    for (const Part& p : a.parts) kinds.insert(p.kind);
    CHECK(kinds.size() == 8);
}

TEST_CASE("budget is met across many seeds") {
    for (uint64_t budget : {10000u, 15000u, 30000u, 50000u, 250000u}) {
        for (uint64_t seed = 100; seed < 120; ++seed) {
            INFO("seed " << seed << " budget " << budget);
            AssemblySpec spec;
            spec.seed = seed;
            spec.triangle_budget = budget;
            const Assembly a = generate_assembly(spec);
            CHECK(a.triangles >= budget * 3 / 4);
            CHECK(a.triangles <= budget * 5 / 4);
        }
    }
}

TEST_CASE("deterministic: same seed same hash, different seed different hash") {
    AssemblySpec spec;
    spec.seed = 5;
    spec.triangle_budget = 50000;
    const Assembly a = generate_assembly(spec);
    const Assembly b = generate_assembly(spec);
    CHECK(assembly_hash(a) == assembly_hash(b));
    CHECK(a.parts.size() == b.parts.size());
    spec.seed = 6;
    const Assembly c = generate_assembly(spec);
    CHECK(assembly_hash(a) != assembly_hash(c));
    spec.seed = 5;
    spec.triangle_budget = 60000;
    CHECK(assembly_hash(a) != assembly_hash(generate_assembly(spec)));
    spec.triangle_budget = 50000;
    spec.crease_angle_deg = 45;
    CHECK(assembly_hash(a) != assembly_hash(generate_assembly(spec)));
}

TEST_CASE("colours are opaque and from a palette") {
    AssemblySpec spec;
    spec.seed = 11;
    spec.triangle_budget = 200000;
    const Assembly a = generate_assembly(spec);
    std::set<uint32_t> colours;
    for (const Part& p : a.parts) {
        CHECK((p.rgba >> 24) == 0xffu);
        colours.insert(p.rgba);
    }
    CHECK(colours.size() >= 6);
    CHECK(colours.size() <= 12);
}
