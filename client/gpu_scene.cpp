#include "client/gpu_scene.h"

#include <cstring>

namespace seatmark::client {

GpuScene::GpuScene(const Device& dev, VkCommandPool pool, const workloads::Assembly& a) {
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
    bytes_ = vertices_.size() + indices_.size() + instances_.size();
}

}  // namespace seatmark::client
