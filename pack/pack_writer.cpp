#include "pack/pack_writer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include <xxhash.h>

#include "common/errors.h"
#include "common/output_file.h"
#include "pack/pack_format.h"

namespace seatmark::pack {

namespace {

uint64_t align_up(uint64_t v) { return (v + pack_align - 1) / pack_align * pack_align; }

// The file written in order, hashing the payload as it goes, through the one output writer
// (common/output_file.h): a temporary file beside the pack, renamed over it at the end, never
// over an input (`seatmark pack a.obj --out a.obj`) or a device.
class Out {
public:
    explicit Out(const std::string& path) : file_(path, "--out") {
        state_ = XXH3_createState();
        XXH3_64bits_reset(state_);
        buf_.reserve(buf_bytes);
    }
    ~Out() { XXH3_freeState(state_); }
    Out(const Out&) = delete;
    Out& operator=(const Out&) = delete;
    void raw(const void* p, size_t n) {
        const char* c = static_cast<const char*>(p);
        if (buf_.size() + n > buf_bytes) flush();
        if (n >= buf_bytes) file_.write(c, n);  // a large mesh goes straight through
        else buf_.insert(buf_.end(), c, c + n);
        at_ += n;
    }
    void payload(const void* p, size_t n) {
        XXH3_64bits_update(state_, p, n);
        raw(p, n);
    }
    void pad_to(uint64_t offset) {
        static const uint8_t zero[pack_align] = {};
        payload(zero, size_t(offset - at_));
    }
    uint64_t at() const { return at_; }
    uint64_t digest() { return XXH3_64bits_digest(state_); }
    // The header, known last, over its placeholder; then the pack takes its name.
    void header(const PackHeader& h) {
        flush();
        file_.write_at(&h, sizeof h, 0);
        file_.commit();
    }

private:
    static constexpr size_t buf_bytes = 1 << 20;
    void flush() {
        file_.write(buf_.data(), buf_.size());
        buf_.clear();
    }
    OutputFile file_;
    std::vector<char> buf_;
    XXH3_state_t* state_ = nullptr;
    uint64_t at_ = 0;
};

// p' = M p for a column-major 4x4 M.
std::array<float, 3> apply(const std::array<float, 16>& m, const float* p) {
    std::array<float, 3> r{};
    for (int i = 0; i < 3; ++i)
        r[size_t(i)] = m[size_t(i)] * p[0] + m[size_t(4 + i)] * p[1] + m[size_t(8 + i)] * p[2] + m[size_t(12 + i)];
    return r;
}

}  // namespace

PackWritten write_pack(const PackContents& c, const std::string& path) {
    PackHeader h{};
    std::memcpy(h.magic, pack_magic, sizeof pack_magic);
    h.version = pack_version;
    h.header_bytes = sizeof(PackHeader);
    h.source_xxh3 = c.source_xxh3;
    h.crease_deg = c.crease_deg;
    h.mesh_count = uint32_t(c.meshes.size());
    h.part_count = uint32_t(c.parts.size());
    std::vector<PackMesh> meshes(c.meshes.size());
    for (size_t i = 0; i < c.meshes.size(); ++i) {
        const auto& m = c.meshes[i];
        PackMesh& pm = meshes[i];
        pm.first_vertex = uint32_t(h.vertex_count);
        pm.vertex_count = uint32_t(m.vertices.size());
        pm.first_index = h.index_count;
        pm.triangle_count = uint32_t(m.indices.size() / 3);
        pm.edge_count = uint32_t(m.edges.size() / 2);
        std::memcpy(pm.bounds_min, m.bounds.min.data(), sizeof pm.bounds_min);
        std::memcpy(pm.bounds_max, m.bounds.max.data(), sizeof pm.bounds_max);
        h.vertex_count += m.vertices.size();
        h.index_count += m.indices.size() + m.edges.size();
    }
    if (h.vertex_count > max_pack_vertices) throw InputError(path + ": the model has more than 2^32 distinct vertices");

    // Sorted by mesh (stable), so each mesh's instances are one contiguous instanced draw.
    std::vector<uint32_t> order(c.parts.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return c.parts[a].mesh < c.parts[b].mesh; });
    std::vector<PackInstance> inst(c.parts.size());
    std::vector<PackPart> parts(c.parts.size());
    std::string names;
    bool first = true;
    for (size_t k = 0; k < order.size(); ++k) {
        const PackPartIn& p = c.parts[order[k]];
        std::memcpy(inst[k].model, p.transform.data(), sizeof inst[k].model);
        inst[k].rgba = p.rgba;
        inst[k].id = p.id;
        const std::string name = p.name.substr(0, max_part_name_bytes);
        parts[k] = {p.mesh, uint32_t(name.size()), names.size()};
        names += name;
        const PackMesh& pm = meshes.at(p.mesh);
        h.triangles += pm.triangle_count;
        h.edges += pm.edge_count;
        // World bounds: the mesh box's eight corners through the transform.
        for (int corner = 0; corner < 8; ++corner) {
            const float q[3] = {(corner & 1) ? pm.bounds_max[0] : pm.bounds_min[0],
                                (corner & 2) ? pm.bounds_max[1] : pm.bounds_min[1],
                                (corner & 4) ? pm.bounds_max[2] : pm.bounds_min[2]};
            auto w = apply(p.transform, q);
            for (int a = 0; a < 3; ++a) {
                if (first || w[size_t(a)] < h.bounds_min[a]) h.bounds_min[a] = w[size_t(a)];
                if (first || w[size_t(a)] > h.bounds_max[a]) h.bounds_max[a] = w[size_t(a)];
            }
            first = false;
        }
    }
    h.names_bytes = names.size();

    uint64_t at = sizeof(PackHeader);
    auto place = [&](uint64_t& off, uint64_t bytes) {
        off = align_up(at);
        at = off + bytes;
    };
    place(h.vertices_offset, h.vertex_count * sizeof(workloads::Vertex));
    place(h.indices_offset, h.index_count * 4);
    place(h.meshes_offset, meshes.size() * sizeof(PackMesh));
    place(h.instances_offset, inst.size() * sizeof(PackInstance));
    place(h.parts_offset, parts.size() * sizeof(PackPart));
    place(h.names_offset, names.size());
    h.file_bytes = at;

    Out out(path);
    PackHeader placeholder{};
    out.raw(&placeholder, sizeof placeholder);
    out.pad_to(h.vertices_offset);
    for (const auto& m : c.meshes) out.payload(m.vertices.data(), m.vertices.size() * sizeof(workloads::Vertex));
    out.pad_to(h.indices_offset);
    for (const auto& m : c.meshes) {
        out.payload(m.indices.data(), m.indices.size() * 4);
        out.payload(m.edges.data(), m.edges.size() * 4);
    }
    out.pad_to(h.meshes_offset);
    out.payload(meshes.data(), meshes.size() * sizeof(PackMesh));
    out.pad_to(h.instances_offset);
    out.payload(inst.data(), inst.size() * sizeof(PackInstance));
    out.pad_to(h.parts_offset);
    out.payload(parts.data(), parts.size() * sizeof(PackPart));
    out.pad_to(h.names_offset);
    out.payload(names.data(), names.size());
    h.payload_xxh3 = out.digest();
    out.header(h);
    PackWritten w;
    w.file_bytes = h.file_bytes;
    w.payload_xxh3 = h.payload_xxh3;
    w.triangles = h.triangles;
    w.edges = h.edges;
    for (int a = 0; a < 3; ++a) {
        w.bounds.min[size_t(a)] = h.bounds_min[a];
        w.bounds.max[size_t(a)] = h.bounds_max[a];
    }
    return w;
}

}  // namespace seatmark::pack
