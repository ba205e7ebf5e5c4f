// glTF 2.0 through tinygltf (Debian's libtinygltf-dev, on the system nlohmann-json). Chosen over
// assimp because assimp 5.2.5 silently draws garbage for KHR_mesh_quantization / EXT_meshopt and
// holds several copies of a large file; here every accessor is bounds-checked against its buffer
// and anything that changes geometry and is not read is refused by name.
#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <fstream>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/input_file.h"
#include "import/importers.h"

namespace seatmark::import {

namespace {

// Textures are not drawn: images are neither decoded nor read.
bool skip_image(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
    return true;
}

// Extensions that change what the geometry is and that this reader does not decode.
const std::set<std::string> geometry_extensions = {"KHR_draco_mesh_compression", "EXT_meshopt_compression",
                                                   "KHR_mesh_quantization", "EXT_mesh_gpu_instancing"};
bool ignorable_required(const std::string& e) {  // look only (materials, textures): safe to draw without
    return e.rfind("KHR_materials_", 0) == 0 || e.rfind("KHR_texture_", 0) == 0 || e.rfind("EXT_texture_", 0) == 0 ||
           e == "KHR_lights_punctual";
}

class Reader {
public:
    Reader(const std::string& path, const tinygltf::Model& m) : path_(path), m_(m) {}

    [[noreturn]] void fail(const std::string& what) const { throw InputError(path_ + ": " + what); }

    // Element i of an accessor as `n` floats / one index, bounds-checked against its buffer once.
    struct View {
        const uint8_t* data = nullptr;
        size_t stride = 0, count = 0;
        int component = 0;
    };
    View view(int accessor, const char* what, int type, bool indices) const {
        if (accessor < 0 || size_t(accessor) >= m_.accessors.size()) fail(std::string(what) + ": accessor " + std::to_string(accessor) + " does not exist");
        const auto& a = m_.accessors[size_t(accessor)];
        const std::string name = std::string(what) + " accessor " + std::to_string(accessor);
        if (a.sparse.isSparse) fail(name + " is sparse (not supported)");
        if (a.type != type) fail(name + " has the wrong type");
        if (indices) {
            if (a.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && a.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
                a.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
                fail(name + ": indices must be unsigned byte, short or int");
        } else if (a.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT) {
            fail(name + " is not float (quantized geometry, KHR_mesh_quantization, is not supported)");
        }
        if (a.bufferView < 0 || size_t(a.bufferView) >= m_.bufferViews.size()) fail(name + " has no buffer view");
        const auto& bv = m_.bufferViews[size_t(a.bufferView)];
        if (bv.buffer < 0 || size_t(bv.buffer) >= m_.buffers.size()) fail(name + ": buffer view names no buffer");
        const auto& buf = m_.buffers[size_t(bv.buffer)].data;
        const int csize = tinygltf::GetComponentSizeInBytes(uint32_t(a.componentType));
        const int ncomp = tinygltf::GetNumComponentsInType(uint32_t(a.type));
        const size_t elem = size_t(csize) * size_t(ncomp);
        const size_t stride = bv.byteStride ? bv.byteStride : elem;
        if (bv.byteOffset > buf.size() || bv.byteLength > buf.size() - bv.byteOffset)
            fail(name + ": buffer view runs past the end of its buffer (" + std::to_string(buf.size()) + " bytes)");
        if (a.count > 0 && (a.byteOffset > bv.byteLength || (a.count - 1) > (bv.byteLength - a.byteOffset) / stride ||
                            a.byteOffset + (a.count - 1) * stride + elem > bv.byteLength))
            fail(name + ": " + std::to_string(a.count) + " elements do not fit in its buffer view");
        return {buf.data() + bv.byteOffset + a.byteOffset, stride, a.count, a.componentType};
    }
    static uint32_t index_at(const View& v, size_t i) {
        const uint8_t* p = v.data + i * v.stride;
        if (v.component == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) return *p;
        if (v.component == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) {
            uint16_t s;
            std::memcpy(&s, p, 2);
            return s;
        }
        uint32_t u;
        std::memcpy(&u, p, 4);
        return u;
    }

    // One mesh per (glTF mesh, primitive), made on first use, so instances share it.
    int primitive_mesh(ImportedModel& out, int mesh, size_t prim) {
        auto key = std::make_pair(mesh, prim);
        if (auto it = made_.find(key); it != made_.end()) return it->second;
        const auto& gm = m_.meshes[size_t(mesh)];
        const auto& p = gm.primitives[prim];
        const std::string name = (gm.name.empty() ? "mesh " + std::to_string(mesh) : gm.name) +
                                 (gm.primitives.size() > 1 ? "/" + std::to_string(prim) : "");
        int result = -1;
        if (p.extensions.count("KHR_draco_mesh_compression"))
            fail(name + " is Draco-compressed (KHR_draco_mesh_compression is not supported); export it uncompressed");
        if (p.mode != TINYGLTF_MODE_TRIANGLES && p.mode != TINYGLTF_MODE_TRIANGLE_STRIP && p.mode != TINYGLTF_MODE_TRIANGLE_FAN) {
            notes_.insert(name + ": points or lines (mode " + std::to_string(p.mode) + ") are not drawn");
        } else {
            auto pos = p.attributes.find("POSITION");
            if (pos == p.attributes.end()) fail(name + " has no POSITION attribute");
            const View v = view(pos->second, (name + " POSITION").c_str(), TINYGLTF_TYPE_VEC3, false);
            workloads::Mesh mm;
            mm.positions.resize(v.count);
            for (size_t i = 0; i < v.count; ++i) std::memcpy(mm.positions[i].data(), v.data + i * v.stride, 12);
            std::vector<uint32_t> idx;
            if (p.indices >= 0) {
                const View iv = view(p.indices, (name + " indices").c_str(), TINYGLTF_TYPE_SCALAR, true);
                idx.resize(iv.count);
                for (size_t i = 0; i < iv.count; ++i) {
                    idx[i] = index_at(iv, i);
                    if (idx[i] >= v.count)
                        fail(name + ": index " + std::to_string(idx[i]) + " at position " + std::to_string(i) +
                             " is out of range (" + std::to_string(v.count) + " vertices)");
                }
            } else {
                idx.resize(v.count);
                for (size_t i = 0; i < v.count; ++i) idx[i] = uint32_t(i);
            }
            if (p.mode == TINYGLTF_MODE_TRIANGLES) {
                mm.triangles = std::move(idx);
                mm.triangles.resize(mm.triangles.size() / 3 * 3);
            } else {
                for (size_t i = 2; i < idx.size(); ++i) {
                    if (p.mode == TINYGLTF_MODE_TRIANGLE_FAN)
                        mm.triangles.insert(mm.triangles.end(), {idx[0], idx[i - 1], idx[i]});
                    else if (i % 2 == 0)
                        mm.triangles.insert(mm.triangles.end(), {idx[i - 2], idx[i - 1], idx[i]});
                    else
                        mm.triangles.insert(mm.triangles.end(), {idx[i - 1], idx[i - 2], idx[i]});
                }
            }
            if (mm.triangles.empty()) fail(name + " has zero triangles");
            result = int(out.meshes.size());
            out.meshes.push_back(std::move(mm));
            out.mesh_names.push_back(name);
        }
        made_[key] = result;
        return result;
    }

    uint32_t colour(int material) {
        if (material < 0 || size_t(material) >= m_.materials.size()) return 0xffb0b0b0;
        const auto& m = m_.materials[size_t(material)];
        const auto& f = m.pbrMetallicRoughness.baseColorFactor;
        // A pack carries one colour per part (what CAD viewers shade with); an image is not drawn.
        if (m.pbrMetallicRoughness.baseColorTexture.index >= 0)
            notes_.insert(texture_note(m.name.empty() ? std::to_string(material) : m.name, "base-colour texture", "baseColorFactor",
                                       f.size() == 4 ? f[0] : 1.0, f.size() == 4 ? f[1] : 1.0, f.size() == 4 ? f[2] : 1.0,
                                       f.size() == 4 ? f[3] : 1.0));
        return f.size() == 4 ? rgba_from_float(f[0], f[1], f[2], f[3]) : 0xffffffff;
    }

    static Matrix local(const tinygltf::Node& n) {
        Matrix r = identity;
        if (n.matrix.size() == 16) {
            for (size_t i = 0; i < 16; ++i) r[i] = float(n.matrix[i]);
            return r;
        }
        Matrix t = identity, rot = identity, s = identity;
        if (n.translation.size() == 3)
            for (size_t i = 0; i < 3; ++i) t[12 + i] = float(n.translation[i]);
        if (n.scale.size() == 3)
            for (size_t i = 0; i < 3; ++i) s[i * 5] = float(n.scale[i]);
        if (n.rotation.size() == 4) {
            const double x = n.rotation[0], y = n.rotation[1], z = n.rotation[2], w = n.rotation[3];
            rot = {float(1 - 2 * (y * y + z * z)), float(2 * (x * y + z * w)), float(2 * (x * z - y * w)), 0,
                   float(2 * (x * y - z * w)), float(1 - 2 * (x * x + z * z)), float(2 * (y * z + x * w)), 0,
                   float(2 * (x * z + y * w)), float(2 * (y * z - x * w)), float(1 - 2 * (x * x + y * y)), 0,
                   0, 0, 0, 1};
        }
        return multiply(t, multiply(rot, s));
    }

    void visit(ImportedModel& out, int node, const Matrix& parent, std::vector<int>& path) {
        if (node < 0 || size_t(node) >= m_.nodes.size()) fail("node " + std::to_string(node) + " does not exist");
        if (std::find(path.begin(), path.end(), node) != path.end()) fail("node " + std::to_string(node) + " is its own ancestor (a cycle in the node tree)");
        if (path.size() > 256) fail("node tree deeper than 256 levels");
        const auto& n = m_.nodes[size_t(node)];
        const Matrix world = multiply(parent, local(n));
        if (n.mesh >= 0) {
            if (size_t(n.mesh) >= m_.meshes.size()) fail("node " + std::to_string(node) + " uses mesh " + std::to_string(n.mesh) + " which does not exist");
            const auto& gm = m_.meshes[size_t(n.mesh)];
            for (size_t p = 0; p < gm.primitives.size(); ++p) {
                const int mesh = primitive_mesh(out, n.mesh, p);
                if (mesh < 0) continue;
                ImportedPart part;
                part.mesh = uint32_t(mesh);
                part.transform = world;
                part.rgba = colour(gm.primitives[p].material);
                part.name = n.name.empty() ? out.mesh_names[size_t(mesh)] : n.name + (gm.primitives.size() > 1 ? "/" + std::to_string(p) : "");
                out.parts.push_back(std::move(part));
            }
        }
        path.push_back(node);
        for (int c : n.children) visit(out, c, world, path);
        path.pop_back();
    }

    std::set<std::string> notes_;

private:
    std::string path_;
    const tinygltf::Model& m_;
    std::map<std::pair<int, size_t>, int> made_;
};

// glTF 1.0 is a different format (techniques and shaders, objects keyed by name), which tinygltf
// does not read: its binary fails as "Invalid glTF binary" and its JSON reads as an empty scene.
// Said by name, with what converts it.
[[noreturn]] void refuse_gltf1(const std::string& path, const std::string& what) {
    throw InputError(path + ": is glTF 1.0 (" + what + "), which is not supported: seatmark reads glTF 2.0. Convert it to 2.0, "
                     "e.g. with Cesium's gltf-pipeline (gltf-pipeline -i " + path + " -o model2.glb) or, for a .gltf, assimp "
                     "(assimp export " + path + " model2.glb -fglb2, Debian's assimp-utils), then pack model2.glb");
}

// The version and extensions are checked on the JSON before tinygltf reads the rest: a Draco
// file, say, has accessors without buffer views, which tinygltf refuses with a message that does
// not name the cause.
void check_header(const std::string& path, bool binary) {
    std::ifstream f(path, std::ios::binary);
    std::string text;
    if (binary) {
        uint32_t head[5] = {};
        if (!f.read(reinterpret_cast<char*>(head), sizeof head) || head[0] != 0x46546C67u) return;
        if (head[1] == 1) refuse_gltf1(path, "a version 1 binary container");
        if (head[4] != 0x4E4F534Au) return;
        if (head[3] > (64u << 20)) return;  // tinygltf reports what is wrong with it
        text.resize(head[3]);
        if (!f.read(text.data(), std::streamsize(text.size()))) return;
    } else {
        std::ostringstream ss;
        ss << f.rdbuf();
        text = ss.str();
    }
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return;
    if (auto a = j.find("asset"); a != j.end() && a->is_object()) {
        if (auto v = a->find("version"); v != a->end()) {
            if (v->is_string() && v->get<std::string>().rfind("1", 0) == 0) refuse_gltf1(path, "asset.version \"" + v->get<std::string>() + "\"");
            if (v->is_number() && v->get<double>() < 2) refuse_gltf1(path, "asset.version " + v->dump());
        }
    }
    for (const char* key : {"meshes", "accessors", "nodes"})  // 1.0 keys them by name; 2.0 lists them
        if (auto it = j.find(key); it != j.end() && it->is_object()) refuse_gltf1(path, std::string(key) + " keyed by name");
    auto list = [&](const char* key) {
        std::vector<std::string> out;
        if (auto it = j.find(key); it != j.end() && it->is_array())
            for (const auto& e : *it)
                if (e.is_string() && std::find(out.begin(), out.end(), e.get<std::string>()) == out.end()) out.push_back(e.get<std::string>());
        return out;
    };
    // Every extension that stops the file is named at once: fixing one to be told of the next wastes
    // an export.
    auto names = [](const std::vector<std::string>& v) {
        std::string s;
        for (size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
        return s;
    };
    std::vector<std::string> geometry, unknown;
    for (const auto& e : list("extensionsRequired")) {
        if (geometry_extensions.count(e)) geometry.push_back(e);
        else if (!ignorable_required(e)) unknown.push_back(e);
    }
    for (const auto& e : list("extensionsUsed"))
        if (geometry_extensions.count(e) && std::find(geometry.begin(), geometry.end(), e) == geometry.end()) geometry.push_back(e);
    std::string why;
    if (!geometry.empty())
        why = "uses " + names(geometry) + (geometry.size() > 1 ? ", which are" : ", which is") +
              " not supported (the geometry would be wrong); export the model without mesh compression or quantization";
    if (!unknown.empty())
        why += (why.empty() ? "" : "; it also ") + std::string("requires the unknown glTF extension") + (unknown.size() > 1 ? "s " : " ") +
               names(unknown);
    if (!why.empty()) throw InputError(path + ": " + why);
}

// tinygltf reads the file and the buffers it names through this: the one rule for inputs
// (common/input_file.h), so a buffer "uri" of /dev/zero or a FIFO is refused, not read forever.
bool read_whole_file(std::vector<unsigned char>* out, std::string* err, const std::string& path, void*) {
    try {
        const std::string bytes = read_input_text(path, "glTF file", max_model_bytes);
        out->assign(bytes.begin(), bytes.end());
        return true;
    } catch (const InputError& e) {
        if (err) *err += e.what();
        return false;
    }
}

}  // namespace

ImportedModel import_gltf(const std::string& path) {
    check_input_file(path, "model", max_model_bytes);  // before check_extensions reads it
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(skip_image, nullptr);
    loader.SetFsCallbacks({&tinygltf::FileExists, &tinygltf::ExpandFilePath, &read_whole_file, &tinygltf::WriteWholeFile,
                           nullptr});
    tinygltf::Model model;
    std::string err, warn;
    const bool binary = path.size() >= 4 && (path.compare(path.size() - 4, 4, ".glb") == 0 || path.compare(path.size() - 4, 4, ".GLB") == 0);
    check_header(path, binary);
    const bool ok = binary ? loader.LoadBinaryFromFile(&model, &err, &warn, path) : loader.LoadASCIIFromFile(&model, &err, &warn, path);
    if (!ok) {
        while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
        for (auto& c : err)
            if (c == '\n') c = ';';
        throw InputError(path + ": not a readable glTF 2.0 file: " + (err.empty() ? "unknown reason" : err) +
                         " (a .gltf needs its .bin buffers beside it)");
    }
    ImportedModel out;
    Reader r(path, model);
    std::vector<int> roots;
    if (!model.scenes.empty()) {
        const size_t s = model.defaultScene >= 0 && size_t(model.defaultScene) < model.scenes.size() ? size_t(model.defaultScene) : 0;
        roots = model.scenes[s].nodes;
    } else {  // no scene: every node nobody has as a child
        std::vector<bool> child(model.nodes.size(), false);
        for (const auto& n : model.nodes)
            for (int c : n.children)
                if (c >= 0 && size_t(c) < child.size()) child[size_t(c)] = true;
        for (size_t i = 0; i < model.nodes.size(); ++i)
            if (!child[i]) roots.push_back(int(i));
    }
    std::vector<int> stack;
    for (int n : roots) r.visit(out, n, identity, stack);
    out.notes.assign(r.notes_.begin(), r.notes_.end());
    if (out.parts.empty()) throw InputError(path + ": the glTF scene has zero triangles (no node uses a triangle mesh)");
    return out;
}

}  // namespace seatmark::import
