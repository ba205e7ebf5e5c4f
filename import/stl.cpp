// STL, binary or ASCII. Small enough to read directly: no Debian package reads STL alone, and
// assimp would bring the glTF problems with it.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/input_file.h"
#include "common/errors.h"
#include "import/importers.h"

namespace seatmark::import {

namespace {

std::string read_all(const std::string& path) {
    return read_input_text(path, "model", max_model_bytes);
}

void add_part(ImportedModel& m, workloads::Mesh&& mesh, std::string name) {
    m.meshes.push_back(std::move(mesh));
    m.mesh_names.push_back(name);
    ImportedPart p;
    p.mesh = uint32_t(m.meshes.size() - 1);
    p.name = std::move(name);
    m.parts.push_back(std::move(p));
}

ImportedModel read_binary(const std::string& path, const std::string& data, uint32_t count) {
    ImportedModel m;
    m.y_up = false;
    workloads::Mesh mesh;
    mesh.positions.resize(size_t(count) * 3);
    mesh.triangles.resize(size_t(count) * 3);
    const char* p = data.data() + 84;
    for (uint32_t t = 0; t < count; ++t, p += 50)
        for (int c = 0; c < 3; ++c) {
            std::memcpy(mesh.positions[size_t(t) * 3 + size_t(c)].data(), p + 12 + 12 * c, 12);
            mesh.triangles[size_t(t) * 3 + size_t(c)] = t * 3 + uint32_t(c);
        }
    add_part(m, std::move(mesh), path.substr(path.find_last_of('/') + 1));
    return m;
}

ImportedModel read_ascii(const std::string& path, const std::string& data) {
    ImportedModel m;
    m.y_up = false;
    std::istringstream in(data);
    std::string line, word;
    int lineno = 0, in_loop = -1;
    bool in_solid = false;
    workloads::Mesh mesh;
    std::string name;
    auto bad = [&](const std::string& what) { throw InputError(where(path, lineno) + what); };
    while (std::getline(in, line)) {
        ++lineno;
        std::istringstream ls(line);
        if (!(ls >> word)) continue;
        if (word == "solid") {
            if (in_solid) bad("'solid' inside a solid (expected 'endsolid' first)");
            in_solid = true;
            std::getline(ls >> std::ws, name);
            if (!name.empty() && name.back() == '\r') name.pop_back();
            mesh = {};
        } else if (word == "endsolid") {
            if (!in_solid) bad("'endsolid' without 'solid'");
            in_solid = false;
            // A solid without facets is legal STL (some exporters write one); it draws nothing.
            if (!mesh.triangles.empty())
                add_part(m, std::move(mesh), name.empty() ? "solid " + std::to_string(m.parts.size() + 1) : name);
        } else if (word == "outer") {
            in_loop = 0;
        } else if (word == "vertex") {
            if (in_loop < 0) bad("'vertex' outside 'outer loop'");
            workloads::Vec3 v;
            if (!(ls >> v[0] >> v[1] >> v[2])) bad("expected three numbers after 'vertex'");
            if (++in_loop > 3) bad("a facet with more than three vertices");
            mesh.triangles.push_back(uint32_t(mesh.positions.size()));
            mesh.positions.push_back(v);
        } else if (word == "endloop") {
            if (in_loop != 3) bad("a facet with " + std::to_string(in_loop) + " vertices (expected 3)");
            in_loop = -1;
        } else if (word != "facet" && word != "endfacet") {
            bad("unexpected '" + word + "' (expected facet, outer loop, vertex, endloop, endfacet or endsolid)");
        }
    }
    if (in_solid) bad("file ends inside a solid (missing 'endsolid': truncated?)");
    if (m.parts.empty()) throw InputError(path + ": the STL has zero triangles");
    return m;
}

}  // namespace

ImportedModel import_stl(const std::string& path) {
    const std::string data = read_all(path);
    if (data.size() >= 84) {
        uint32_t count = 0;
        std::memcpy(&count, data.data() + 80, 4);
        // Binary exactly when the size fits the count (ASCII files start with "solid" too, sometimes binary ones do).
        if (uint64_t(data.size()) == 84 + 50ull * count) {
            if (count == 0) throw InputError(path + ": the binary STL has zero triangles");
            return read_binary(path, data, count);
        }
    }
    if (data.compare(0, 5, "solid") == 0 && data.find("facet") != std::string::npos) return read_ascii(path, data);
    if (data.size() >= 84) {
        uint32_t count = 0;
        std::memcpy(&count, data.data() + 80, 4);
        throw InputError(path + ": binary STL header says " + std::to_string(count) + " triangles (" +
                         std::to_string(84 + 50ull * count) + " bytes) but the file has " + std::to_string(data.size()) +
                         " bytes (truncated or not an STL)");
    }
    throw InputError(path + ": not an STL file (too short, and not ASCII 'solid ... facet')");
}

}  // namespace seatmark::import
