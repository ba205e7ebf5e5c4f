#pragma once
// What every importer produces: meshes in the source's own units (welded or not), and the parts
// that place them. Instancing is kept: a mesh used by many parts is listed once.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/mesh.h"

namespace seatmark::import {

using Matrix = std::array<float, 16>;  // column-major
inline constexpr Matrix identity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
Matrix multiply(const Matrix& a, const Matrix& b);  // a * b

struct ImportedPart {
    uint32_t mesh = 0;
    Matrix transform = identity;
    uint32_t rgba = 0xffb0b0b0;  // R in the low byte
    std::string name;
    // A part whose faces carry several colours (STEP/IGES face colours) is drawn as one piece per
    // colour, each with a mesh of its own; every piece after the first names the first here
    // (an earlier index into ImportedModel::parts) and shares its id, so it is one part to count
    // and to select. no_piece: a part of its own.
    uint32_t piece_of = no_piece;
    static constexpr uint32_t no_piece = UINT32_MAX;
};

struct ImportedModel {
    std::vector<workloads::Mesh> meshes;
    std::vector<std::string> mesh_names;  // parallel to meshes, for messages
    std::vector<ImportedPart> parts;
    std::vector<std::string> notes;       // what was skipped and why (points, lines, textures)
    bool y_up = true;                     // glTF and OBJ are Y-up; STL, STEP and IGES Z-up by CAD habit
};

// Adds what an importer wants said, one note per line of `text` (a reader's warnings come as
// one string of lines), each once: tinyobjloader repeats "material not found" for every usemtl.
void add_note(std::vector<std::string>& notes, std::string_view text);

// The note for a material whose texture is not drawn (a pack holds one colour per part), the
// same words for every format: `texture` names it as the format does ("base-colour texture",
// "diffuse texture map_Kd wood.png"), `factor` the colour drawn instead ("baseColorFactor", "Kd").
std::string texture_note(std::string_view material, std::string_view texture, std::string_view factor, double r, double g,
                         double b, double a);

inline uint32_t rgba_from_float(double r, double g, double b, double a = 1) {
    auto c = [](double v) { return uint32_t(v <= 0 ? 0 : v >= 1 ? 255 : v * 255 + 0.5); };
    return c(r) | c(g) << 8 | c(b) << 16 | c(a) << 24;
}

}  // namespace seatmark::import
