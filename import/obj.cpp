// Wavefront OBJ through tinyobjloader (Debian's libtinyobjloader-dev): it triangulates polygons
// and reads the MTL next to the file; we only turn its shapes into meshes and parts.
#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <unordered_map>

#include <tiny_obj_loader.h>

#include "common/errors.h"
#include "common/input_file.h"
#include "import/importers.h"

namespace seatmark::import {

namespace {

// Every .mtl an OBJ names (mtllib), looked for beside the OBJ as tinyobjloader's own reader does,
// but read by the one rule for inputs (common/input_file.h): a regular file of bounded size. Its
// own reader read whatever the name gave, /dev/zero or a FIFO included, without end.
class MaterialReader : public tinyobj::MaterialReader {
public:
    explicit MaterialReader(std::string dir) : dir_(std::move(dir)) {}
    bool operator()(const std::string& name, std::vector<tinyobj::material_t>* materials, std::map<std::string, int>* ids,
                    std::string* warn, std::string* err) override {
        const std::string path = dir_.empty() || (!name.empty() && name[0] == '/') ? name : dir_ + "/" + name;
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            if (warn) *warn += "material library " + path + " not found: default colours\n";
            return false;
        }
        std::istringstream in(read_input_text(path, "material library (mtllib)", max_model_bytes));
        tinyobj::LoadMtl(ids, materials, &in, warn, err);
        return true;
    }

private:
    std::string dir_;
};

}  // namespace

ImportedModel import_obj(const std::string& path) {
    tinyobj::attrib_t attrib;
    std::vector<tinyobj::shape_t> shapes;
    std::vector<tinyobj::material_t> materials;
    std::string warning, error;
    std::istringstream in(read_input_text(path, "model", max_model_bytes));
    const auto slash = path.find_last_of('/');
    MaterialReader mtl(slash == std::string::npos ? std::string() : path.substr(0, slash));
    if (!tinyobj::LoadObj(&attrib, &shapes, &materials, &warning, &error, &in, &mtl, /*triangulate=*/true,
                          /*default_vcols_fallback=*/false)) {
        std::string e = error;
        while (!e.empty() && (e.back() == '\n' || e.back() == '\r')) e.pop_back();
        throw InputError(path + ": not a readable OBJ file: " + (e.empty() ? "unknown reason" : e));
    }
    ImportedModel m;
    // tinyobjloader's warnings are one string of lines, repeated per usemtl: one note each, once.
    {
        std::string w = warning, prefixed;
        for (size_t at = 0; at < w.size();) {
            const size_t nl = std::min(w.find('\n', at), w.size());
            if (nl > at) prefixed += "OBJ reader: " + w.substr(at, nl - at) + "\n";
            at = nl + 1;
        }
        add_note(m.notes, prefixed);
    }
    // A material's texture is not drawn: said once per material that a face uses, as glTF's are.
    std::vector<bool> texture_said(materials.size(), false);
    auto note_texture = [&](int mat) {
        if (mat < 0 || size_t(mat) >= materials.size() || texture_said[size_t(mat)]) return;
        texture_said[size_t(mat)] = true;
        const auto& mt = materials[size_t(mat)];
        if (mt.diffuse_texname.empty()) return;
        add_note(m.notes, texture_note(mt.name.empty() ? std::to_string(mat) : mt.name, "diffuse texture (map_Kd " + mt.diffuse_texname + ")",
                                       "Kd", mt.diffuse[0], mt.diffuse[1], mt.diffuse[2], mt.dissolve));
    };
    const size_t nv = attrib.vertices.size() / 3;
    for (const auto& shape : shapes) {
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
                note_texture(mat);
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
            add_note(out.notes, "'" + m.parts[i].name + "' has no triangles (points or lines only): skipped");
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
