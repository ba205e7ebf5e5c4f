#pragma once
// Closed triangle meshes, their feature edges, and the render form a GPU draws.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace seatmark::workloads {

using Vec3 = std::array<float, 3>;

struct Bounds {
    Vec3 min{0, 0, 0}, max{0, 0, 0};
};

// Welded topology: vertices shared between triangles, counter-clockwise seen
// from outside. A closed solid has every edge shared by exactly two triangles
// with opposite directions.
struct Mesh {
    std::vector<Vec3> positions;
    std::vector<uint32_t> triangles;  // 3 indices per triangle
};

struct Vertex {
    float position[3];
    float normal[3];
};

// What a renderer uploads: vertices split where normals crease, a triangle
// list, and feature edges as a line list.
struct RenderMesh {
    std::vector<Vertex> vertices;
    std::vector<uint32_t> indices;  // triangle list into vertices
    std::vector<uint32_t> edges;    // line list into vertices (2 per edge)
    Bounds bounds;
};

// Merges vertices closer than `tolerance` (so meshes built from patches become one closed solid).
Mesh weld(const Mesh& m, float tolerance = 1e-5f);
void append(Mesh& into, const Mesh& other);  // several solids in one mesh stay closed

bool is_closed(const Mesh& m);  // every edge used exactly twice, once in each direction

// Edges whose two triangles meet at a dihedral angle above angle_deg, plus any
// edge with only one triangle. Pairs of position indices, smaller index first, sorted.
std::vector<std::pair<uint32_t, uint32_t>> feature_edges(const Mesh& m, double angle_deg);

// Normals averaged over faces within crease_deg of each other, vertices split at creases,
// feature edges from feature_edges(m, crease_deg).
RenderMesh to_render_mesh(const Mesh& m, double crease_deg);

Bounds bounds_of(const Mesh& m);

}  // namespace seatmark::workloads
