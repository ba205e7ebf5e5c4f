#include "import/build_pack.h"

#include <atomic>
#include <cstring>
#include <unordered_map>
#include <cmath>
#include <thread>

#include "common/errors.h"

namespace seatmark::import {

namespace {

// Corners at bit-identical positions become one vertex, so feature edges and smooth normals see
// the surface as connected; unlike workloads::weld, degenerate triangles are kept (counted): the
// source draws them, and so must a faithful workload.
workloads::Mesh weld_exact(const workloads::Mesh& m) {
    struct Key {
        uint32_t x, y, z;
        bool operator==(const Key&) const = default;
    };
    struct Hash {
        size_t operator()(const Key& k) const {
            uint64_t h = (uint64_t(k.x) * 0x9e3779b97f4a7c15ull) ^ (uint64_t(k.y) * 0xc2b2ae3d27d4eb4full) ^
                         (uint64_t(k.z) * 0x165667b19e3779f9ull);
            return size_t(h ^ (h >> 29));
        }
    };
    auto bits = [](float f) {
        if (f == 0) f = 0;  // -0 and +0 are one position
        uint32_t u;
        std::memcpy(&u, &f, 4);
        return u;
    };
    workloads::Mesh out;
    std::unordered_map<Key, uint32_t, Hash> seen;
    seen.reserve(m.positions.size());
    std::vector<uint32_t> remap(m.positions.size());
    for (size_t i = 0; i < m.positions.size(); ++i) {
        const auto& p = m.positions[i];
        auto [it, fresh] = seen.try_emplace(Key{bits(p[0]), bits(p[1]), bits(p[2])}, uint32_t(out.positions.size()));
        if (fresh) out.positions.push_back(p);
        remap[i] = it->second;
    }
    out.triangles.resize(m.triangles.size());
    for (size_t i = 0; i < m.triangles.size(); ++i) out.triangles[i] = remap[m.triangles[i]];
    return out;
}

// The crease rule (workloads::to_render_mesh) on the proper triangles; degenerate ones are
// appended afterwards, so they are drawn as in the source but make no feature edges (an edge
// with a collapsed triangle on it would count three triangles and be drawn as a border).
workloads::RenderMesh render_mesh(const workloads::Mesh& w, double crease_deg, uint64_t& degenerate) {
    workloads::Mesh proper;
    proper.positions = w.positions;
    std::vector<uint32_t> collapsed;
    for (size_t t = 0; t + 2 < w.triangles.size(); t += 3) {
        const uint32_t a = w.triangles[t], b = w.triangles[t + 1], c = w.triangles[t + 2];
        auto& into = (a == b || b == c || a == c) ? collapsed : proper.triangles;
        into.insert(into.end(), {a, b, c});
    }
    degenerate = collapsed.size() / 3;
    workloads::RenderMesh r = workloads::to_render_mesh(proper, crease_deg);
    if (collapsed.empty()) return r;
    std::vector<uint32_t> vertex_of(w.positions.size(), UINT32_MAX);  // any render vertex at the position
    for (size_t k = 0; k < proper.triangles.size(); ++k) vertex_of[proper.triangles[k]] = r.indices[k];
    for (uint32_t p : collapsed) {
        if (vertex_of[p] == UINT32_MAX) {
            vertex_of[p] = uint32_t(r.vertices.size());
            workloads::Vertex v{{w.positions[p][0], w.positions[p][1], w.positions[p][2]}, {0, 1, 0}};
            r.vertices.push_back(v);
            for (size_t a = 0; a < 3; ++a) {
                if (r.vertices.size() == 1 || v.position[a] < r.bounds.min[a]) r.bounds.min[a] = v.position[a];
                if (r.vertices.size() == 1 || v.position[a] > r.bounds.max[a]) r.bounds.max[a] = v.position[a];
            }
        }
        r.indices.push_back(vertex_of[p]);
    }
    return r;
}

}  // namespace

Matrix multiply(const Matrix& a, const Matrix& b) {
    Matrix r{};
    for (int c = 0; c < 4; ++c)
        for (int rr = 0; rr < 4; ++rr) {
            float s = 0;
            for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + rr)] * b[size_t(c * 4 + k)];
            r[size_t(c * 4 + rr)] = s;
        }
    return r;
}

pack::PackContents build_pack(ImportedModel model, double crease_deg, const std::string& source, BuildStats& stats,
                              const std::function<void(size_t, size_t)>& progress) {
    if (model.parts.empty()) throw InputError(source + ": the model has no parts with triangles to draw");
    std::vector<uint32_t> remap(model.meshes.size(), UINT32_MAX);
    pack::PackContents out;
    out.crease_deg = float(crease_deg);
    std::vector<uint32_t> used;  // source mesh per output mesh
    for (const auto& p : model.parts) {
        if (p.mesh >= model.meshes.size()) throw std::logic_error("importer produced a part without a mesh");
        if (remap[p.mesh] == UINT32_MAX) {
            remap[p.mesh] = uint32_t(used.size());
            used.push_back(p.mesh);
        }
        for (float v : p.transform)
            if (!std::isfinite(v)) throw InputError(source + ": part '" + p.name + "' has a NaN or infinite transform");
    }
    auto mesh_name = [&](uint32_t m) {
        return m < model.mesh_names.size() && !model.mesh_names[m].empty() ? "mesh '" + model.mesh_names[m] + "'"
                                                                             : "mesh " + std::to_string(m);
    };
    for (uint32_t m : used) {
        const auto& mesh = model.meshes[m];
        if (mesh.triangles.empty()) throw InputError(source + ": " + mesh_name(m) + " has zero triangles");
        for (size_t i = 0; i < mesh.positions.size(); ++i)
            for (float v : mesh.positions[i])
                if (!std::isfinite(v))
                    throw InputError(source + ": " + mesh_name(m) + " vertex " + std::to_string(i) +
                                     " has a NaN or infinite position");
        for (uint32_t i : mesh.triangles)
            if (i >= mesh.positions.size())
                throw InputError(source + ": " + mesh_name(m) + " index " + std::to_string(i) + " is out of range (" +
                                 std::to_string(mesh.positions.size()) + " vertices)");
        stats.source_triangles += mesh.triangles.size() / 3;
    }

    // Meshes are independent: normals and edges on every core, results in source order.
    out.meshes.resize(used.size());
    std::vector<uint64_t> degenerate(used.size(), 0);
    std::atomic<size_t> next{0}, done{0};
    auto worker = [&] {
        for (size_t k; (k = next.fetch_add(1)) < used.size();) {
            out.meshes[k] = render_mesh(weld_exact(model.meshes[used[k]]), crease_deg, degenerate[k]);
            workloads::Mesh().positions.swap(model.meshes[used[k]].positions);  // free the source as we go
            ++done;
        }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), unsigned(used.size())));
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < n; ++i) pool.emplace_back(worker);
    if (progress) {
        std::thread main_worker(worker);
        for (int tick = 0; done.load() < used.size(); ++tick) {
            if (tick % 25 == 0) progress(done.load(), used.size());
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        main_worker.join();
        progress(used.size(), used.size());
    } else {
        worker();
    }
    for (auto& t : pool) t.join();
    for (size_t k = 0; k < used.size(); ++k) stats.degenerate += degenerate[k];

    // Z-up sources are turned Y-up, so the session's camera (Y up) sees them standing.
    const Matrix z_to_y{1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
    uint32_t id = 1;
    for (size_t i = 0; i < model.parts.size(); ++i) {
        auto& p = model.parts[i];
        pack::PackPartIn q;
        q.mesh = remap[p.mesh];
        q.transform = model.y_up ? p.transform : multiply(z_to_y, p.transform);
        q.rgba = p.rgba;
        if (p.piece_of == ImportedPart::no_piece) {
            q.id = id++;  // stable: the source's traversal order
        } else {
            if (p.piece_of >= i) throw std::logic_error("importer produced a colour piece before its part");
            q.id = out.parts[p.piece_of].id;  // one part, drawn in pieces: selected and counted as one
        }
        q.name = std::move(p.name);
        out.parts.push_back(std::move(q));
    }
    return out;
}

}  // namespace seatmark::import
