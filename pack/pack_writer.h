#pragma once
// Writes a .smpack (pack/pack_format.h) from render meshes and the parts that place them.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/mesh.h"

namespace seatmark::pack {

struct PackPartIn {
    uint32_t mesh = 0;
    std::array<float, 16> transform{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};  // column-major
    uint32_t rgba = 0xffb0b0b0;
    uint32_t id = 0;
    std::string name;
};

struct PackContents {
    std::vector<workloads::RenderMesh> meshes;  // each stored once
    std::vector<PackPartIn> parts;              // any order: written sorted by mesh (stable)
    uint64_t source_xxh3 = 0;
    float crease_deg = 30;
};

struct PackWritten {
    uint64_t file_bytes = 0, payload_xxh3 = 0, triangles = 0, edges = 0;
    workloads::Bounds bounds;
};

// Writes `path` through a temporary file renamed into place, so a reader never sees half a pack.
// Throws InputError naming the path when it cannot be written.
PackWritten write_pack(const PackContents& c, const std::string& path);

}  // namespace seatmark::pack
