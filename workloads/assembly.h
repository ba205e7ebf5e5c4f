#pragma once
// A procedural CAD assembly, deterministic for a seed: plates with holes, shafts,
// gears, brackets, bearing blocks and instanced fasteners, as closed tessellated
// solids with per-part colours and feature edges. This is what a session renders.
//
// Coordinates: Y up, right-handed, millimetres. The assembly is a field of "stations" on the
// XZ plane, centred on the origin in x and z; plate tops at y = 0, shafts and gears above
// (up to ~0.2 m), nuts below (down to about -45). The field is about square: a 10k budget gives
// one or two small stations (~0.4 m x 0.3 m), 1M triangles ~2 m x 2 m, 10M ~5 m x 5 m.
#include <array>
#include <cstdint>
#include <vector>

#include "workloads/mesh.h"

namespace seatmark::workloads {

enum class PartKind : uint8_t { plate, shaft, gear, bracket, block, bolt, nut, washer };

struct Part {
    uint32_t mesh = 0;               // index into Assembly::meshes
    std::array<float, 16> transform; // model matrix, column-major (as GLSL mat4)
    uint32_t rgba = 0xffffffff;      // colour, R in the low byte
    uint32_t id = 0;                 // unique per part, stable for a seed (used for selection)
    PartKind kind = PartKind::plate;
};

struct Assembly {
    std::vector<RenderMesh> meshes;  // shared by parts: fasteners are instanced
    std::vector<Part> parts;         // sorted by mesh, so a renderer draws each mesh once, instanced
    Bounds bounds;                   // world space, over all parts
    uint64_t triangles = 0;          // drawn per frame: sum over parts of their mesh's triangles
    uint64_t edges = 0;              // feature edge segments drawn per frame
};

struct AssemblySpec {
    uint64_t seed = 1;
    uint64_t triangle_budget = 20000;  // the result lands within +-25 % of it (10k .. tens of millions)
                                       // (in practice 95..100 %; below ~6k one minimal station may exceed it)
    double crease_angle_deg = 30;      // feature edge / normal split threshold
};

Assembly generate_assembly(const AssemblySpec& spec);

// XXH3-64 over every mesh's vertices, indices, edges and every part, in order:
// equal for equal seeds and budgets, on every machine.
uint64_t assembly_hash(const Assembly& a);

}  // namespace seatmark::workloads
