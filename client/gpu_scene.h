#pragma once
// The assembly on the GPU: one vertex buffer and one index buffer holding every
// mesh (triangles and edge lines), one per-instance buffer with every part's
// transform, colour and id, and a draw list of one instanced draw per mesh.
#include <cstdint>
#include <vector>

#include "client/vk_resources.h"
#include "pack/pack_reader.h"
#include "workloads/assembly.h"

namespace seatmark::client {

struct InstanceData {
    float model[16];
    uint32_t rgba;
    uint32_t id;
};
static_assert(sizeof(InstanceData) == 72);

struct MeshDraw {
    uint32_t first_index = 0, index_count = 0;  // triangles
    uint32_t first_edge = 0, edge_count = 0;    // line list indices
    int32_t vertex_offset = 0;
    uint32_t first_instance = 0, instance_count = 0;
};

// What the scene is made from: the procedural assembly, or a mapped pack, whose vertex, index and
// instance sections are laid out as these buffers are and are uploaded as they lie.
struct SceneInput {
    SceneInput(const workloads::Assembly& a) : assembly(&a) {}
    SceneInput(const pack::PackFile& p) : pack(&p) {}
    const workloads::Assembly* assembly = nullptr;
    const pack::PackFile* pack = nullptr;
};

class GpuScene {
public:
    GpuScene(const Device& dev, VkCommandPool pool, SceneInput input);

    VkBuffer vertices() const { return vertices_.get(); }
    VkBuffer indices() const { return indices_.get(); }
    VkBuffer instances() const { return instances_.get(); }
    const std::vector<MeshDraw>& draws() const { return draws_; }
    uint64_t bytes() const { return bytes_; }

private:
    void from_assembly(const Device& dev, VkCommandPool pool, const workloads::Assembly& assembly);
    void from_pack(const Device& dev, VkCommandPool pool, const pack::PackFile& pack);
    Buffer vertices_, indices_, instances_;
    std::vector<MeshDraw> draws_;
    uint64_t bytes_ = 0;
};

}  // namespace seatmark::client
