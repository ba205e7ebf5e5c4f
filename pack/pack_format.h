#pragma once
// The .smpack file: what `seatmark pack` writes and a session maps. One rule for its layout, here.
//
//   [PackHeader, 256 bytes][sections, each 64-byte aligned, in this order]
//     vertices   workloads::Vertex[vertex_count]   position + normal, 24 bytes: uploaded as is
//     indices    uint32[index_count]               per mesh: its triangle list, then its edge line list,
//                                                  both relative to the mesh's first vertex
//     meshes     PackMesh[mesh_count]
//     instances  PackInstance[part_count]          model matrix, colour, id: uploaded as is (the
//                                                  session's per-instance vertex buffer), sorted by mesh
//     parts      PackPart[part_count]              mesh, name (same order as instances)
//     names      char[names_bytes]                 part names, UTF-8, not terminated
//
// Little-endian. `payload_xxh3` is XXH3-64 over every byte after the header, so a truncated or
// flipped file is refused before anything uses it; the header itself is checked field by field.
// A mesh is stored once however many parts use it (instancing). A part whose faces carry several
// colours (STEP/IGES) is stored as one entry per colour, each with its own mesh and the part's id
// and name: readers of version 1 draw it unchanged, and selection and counts go by id.
#include <cstdint>

namespace seatmark::pack {

inline constexpr char pack_magic[8] = {'S', 'M', 'P', 'A', 'C', 'K', '\r', '\n'};
inline constexpr uint32_t pack_version = 1;  // readers refuse newer versions
inline constexpr uint64_t pack_align = 64;

struct PackHeader {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;       // sizeof(PackHeader)
    uint64_t file_bytes;         // the whole file
    uint64_t payload_xxh3;       // XXH3-64 of bytes [header_bytes, file_bytes)
    uint64_t source_xxh3;        // XXH3-64 over the source files' contents (the pack cache key)
    uint64_t vertex_count;
    uint64_t index_count;
    uint32_t mesh_count;
    uint32_t part_count;
    uint64_t names_bytes;
    uint64_t vertices_offset, indices_offset, meshes_offset, instances_offset, parts_offset, names_offset;
    uint64_t triangles;          // drawn per frame: sum over parts of their mesh's triangles
    uint64_t edges;              // feature edge segments drawn per frame
    float bounds_min[3], bounds_max[3];  // world space, over every part
    float crease_deg;            // the feature-edge / normal-split angle the meshes were made with
    uint32_t reserved0;
    uint8_t reserved[88];        // zero
};
static_assert(sizeof(PackHeader) == 256);

struct PackMesh {
    uint32_t first_vertex, vertex_count;
    uint64_t first_index;        // into indices
    uint32_t triangle_count;     // indices [first_index, first_index + 3 * triangle_count)
    uint32_t edge_count;         // then 2 * edge_count line indices
    float bounds_min[3], bounds_max[3];  // mesh space
};
static_assert(sizeof(PackMesh) == 48);

struct PackInstance {
    float model[16];             // column-major, as GLSL mat4
    uint32_t rgba;               // R in the low byte
    uint32_t id;                 // stable part id (selection); a part's colour pieces share it
};
static_assert(sizeof(PackInstance) == 72);

struct PackPart {
    uint32_t mesh;
    uint32_t name_bytes;
    uint64_t name_offset;        // into names
};
static_assert(sizeof(PackPart) == 16);

// Limits a reader enforces before it maps or allocates anything: a header claiming more is refused.
inline constexpr uint64_t max_pack_vertices = 1ull << 32;  // uint32 indices
inline constexpr uint32_t max_pack_meshes = 1u << 24;
inline constexpr uint32_t max_pack_parts = 1u << 26;
inline constexpr uint32_t max_part_name_bytes = 4096;

}  // namespace seatmark::pack
