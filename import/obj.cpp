// Wavefront OBJ through tinyobjloader (Debian's libtinyobjloader-dev): it triangulates polygons
// and reads the MTL next to the file; we only turn its shapes into meshes and parts.
#include <map>
#include <unordered_map>

#include <tiny_obj_loader.h>

#include "common/errors.h"
#include "import/importers.h"

namespace seatmark::import {

ImportedModel import_obj(const std::string& path) {
    tinyobj::ObjReaderConfig cfg;
    cfg.triangulate = true;
    cfg.vertex_color = false;
    tinyobj::ObjReader reader;
    if (!reader.ParseFromFile(path, cfg)) {
        std::string e = reader.Error();
        while (!e.empty() && (e.back() == '\n' || e.back() == '\r')) e.pop_back();
        throw InputError(path + ": not a readable OBJ file: " + (e.empty() ? "unknown reason" : e));
    }
    const auto& attrib = reader.GetAttrib();
    const auto& materials = reader.GetMaterials();
    const size_t nv = attrib.vertices.size() / 3;
    ImportedModel m;
    if (!reader.Warning().empty()) {
        std::string w = reader.Warning();
        while (!w.empty() && w.back() == '\n') w.pop_back();
        m.notes.push_back("OBJ reader: " + w);
    }
    for (const auto& shape : reader.GetShapes()) {
        const auto& sm = shape.mesh;
        // One mesh per material in the shape, in order of first use; only the vertices it uses.
        std::map<int, size_t> by_material;
        std::vector<std::unordered_map<int, uint32_t>> local;
        size_t at = 0;
        const size_t base = m.meshes.size();
        for (size_t f = 0; f < sm.num_face_vertices.size(); ++f) {
            const size_t fv = sm.num_face_vertices[f];
            const int mat = f < sm.material_ids.size() ? sm.material_ids[f] : -1;
            auto [it, fresh] = by_material.try_emplace(mat, m.meshes.size());
            if (fresh) {
                m.meshes.emplace_back();
                std::string name = shape.name.empty() ? "object " + std::to_string(m.parts.size() + 1) : shape.name;
                if (mat >= 0 && size_t(mat) < materials.size() && !materials[size_t(mat)].name.empty())
                    name += "/" + materials[size_t(mat)].name;
                m.mesh_names.push_back(name);
                ImportedPart p;
                p.mesh = uint32_t(it->second);
                p.name = name;
                if (mat >= 0 && size_t(mat) < materials.size()) {
                    const auto& d = materials[size_t(mat)].diffuse;
                    p.rgba = rgba_from_float(d[0], d[1], d[2], materials[size_t(mat)].dissolve);
                }
                m.parts.push_back(std::move(p));
                local.emplace_back();
            }
            if (fv != 3) {  // polygons are triangulated; lines and points have no faces here
                at += fv;
                continue;
            }
            workloads::Mesh& mesh = m.meshes[it->second];
            auto& remap = local[it->second - base];
            for (size_t c = 0; c < 3; ++c) {
                const int vi = sm.indices[at + c].vertex_index;
                if (vi < 0 || size_t(vi) >= nv)
                    throw InputError(path + ": shape '" + shape.name + "' face " + std::to_string(f + 1) +
                                     " uses vertex " + std::to_string(vi + 1) + " but the file has " + std::to_string(nv) +
                                     " vertices (out of range)");
                auto [r, added] = remap.try_emplace(vi, uint32_t(mesh.positions.size()));
                if (added)
                    mesh.positions.push_back({float(attrib.vertices[3 * size_t(vi)]), float(attrib.vertices[3 * size_t(vi) + 1]),
                                              float(attrib.vertices[3 * size_t(vi) + 2])});
                mesh.triangles.push_back(r->second);
            }
            at += 3;
        }
    }
    // Shapes made only of points or lines give meshes with no triangles: not drawn, said in the notes.
    ImportedModel out;
    out.notes = std::move(m.notes);
    for (size_t i = 0; i < m.parts.size(); ++i) {
        auto& mesh = m.meshes[m.parts[i].mesh];
        if (mesh.triangles.empty()) {
            out.notes.push_back("'" + m.parts[i].name + "' has no triangles (points or lines only): skipped");
            continue;
        }
        out.meshes.push_back(std::move(mesh));
        out.mesh_names.push_back(m.mesh_names[m.parts[i].mesh]);
        m.parts[i].mesh = uint32_t(out.meshes.size() - 1);
        out.parts.push_back(std::move(m.parts[i]));
    }
    if (out.parts.empty()) throw InputError(path + ": the OBJ has zero triangles (no faces with three or more vertices)");
    return out;
}

}  // namespace seatmark::import
