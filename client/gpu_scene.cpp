#include "client/gpu_scene.h"

#include <cstring>

#include "common/errors.h"

namespace seatmark::client {

static_assert(sizeof(InstanceData) == sizeof(pack::PackInstance) && sizeof(workloads::Vertex) == 24,
              "a pack's sections are uploaded as they lie");

GpuScene::GpuScene(const Device& dev, VkCommandPool pool, SceneInput input) {
    if (input.pack)
        from_pack(dev, pool, *input.pack);
    else
        from_assembly(dev, pool, *input.assembly);
    bytes_ = vertices_.size() + indices_.size() + instances_.size();
}

void GpuScene::from_pack(const Device& dev, VkCommandPool pool, const pack::PackFile& p) {
    if (p.indices().size() >= (1ull << 32))
        throw InputError(p.path() + ": more than 2^32 indices cannot be drawn with 32-bit first-index offsets; split the model");
    draws_.resize(p.meshes().size());
    for (size_t i = 0; i < p.meshes().size(); ++i) {
        const auto& m = p.meshes()[i];
        auto& d = draws_[i];
        d.vertex_offset = static_cast<int32_t>(m.first_vertex);
        d.first_index = static_cast<uint32_t>(m.first_index);
        d.index_count = 3 * m.triangle_count;
        d.first_edge = d.first_index + d.index_count;
        d.edge_count = 2 * m.edge_count;
    }
    for (size_t i = 0; i < p.parts().size(); ++i) {  // sorted by mesh: the reader checked it
        auto& d = draws_[p.parts()[i].mesh];
        if (d.instance_count == 0) d.first_instance = static_cast<uint32_t>(i);
        ++d.instance_count;
    }
    // The big sections leave this process's memory as they are copied (the page cache keeps them).
    const auto done = [&p](const void* at, size_t n) { p.page_out(at, n); };
    vertices_ = upload_buffer(dev, pool, p.vertices().data(), p.vertices().size_bytes(), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, done);
    indices_ = upload_buffer(dev, pool, p.indices().data(), p.indices().size_bytes(), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, done);
    instances_ = upload_buffer(dev, pool, p.instances().data(), p.instances().size_bytes(), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
}

void GpuScene::from_assembly(const Device& dev, VkCommandPool pool, const workloads::Assembly& a) {
    std::vector<workloads::Vertex> verts;
    std::vector<uint32_t> idx;
    size_t nv = 0, ni = 0;
    for (auto& m : a.meshes) {
        nv += m.vertices.size();
        ni += m.indices.size() + m.edges.size();
    }
    verts.reserve(nv);
    idx.reserve(ni);

    draws_.resize(a.meshes.size());
    for (size_t i = 0; i < a.meshes.size(); ++i) {
        auto& m = a.meshes[i];
        auto& d = draws_[i];
        d.vertex_offset = static_cast<int32_t>(verts.size());
        d.first_index = static_cast<uint32_t>(idx.size());
        d.index_count = static_cast<uint32_t>(m.indices.size());
        idx.insert(idx.end(), m.indices.begin(), m.indices.end());
        d.first_edge = static_cast<uint32_t>(idx.size());
        d.edge_count = static_cast<uint32_t>(m.edges.size());
        idx.insert(idx.end(), m.edges.begin(), m.edges.end());
        verts.insert(verts.end(), m.vertices.begin(), m.vertices.end());
    }

    // Parts arrive sorted by mesh, so each mesh's instances are contiguous.
    std::vector<InstanceData> inst(a.parts.size());
    for (size_t i = 0; i < a.parts.size(); ++i) {
        const auto& p = a.parts[i];
        std::memcpy(inst[i].model, p.transform.data(), sizeof inst[i].model);
        inst[i].rgba = p.rgba;
        inst[i].id = p.id;
        auto& d = draws_.at(p.mesh);
        if (d.instance_count == 0) d.first_instance = static_cast<uint32_t>(i);
        ++d.instance_count;
    }

    vertices_ = upload_buffer(dev, pool, verts.data(), verts.size() * sizeof(workloads::Vertex),
                              VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    indices_ = upload_buffer(dev, pool, idx.data(), idx.size() * sizeof(uint32_t), VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
    instances_ = upload_buffer(dev, pool, inst.data(), inst.size() * sizeof(InstanceData),
                               VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
}

}  // namespace seatmark::client
