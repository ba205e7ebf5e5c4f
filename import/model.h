#pragma once
// What every importer produces: meshes in the source's own units (welded or not), and the parts
// that place them. Instancing is kept: a mesh used by many parts is listed once.
#include <array>
#include <cstdint>
#include <string>
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

inline uint32_t rgba_from_float(double r, double g, double b, double a = 1) {
    auto c = [](double v) { return uint32_t(v <= 0 ? 0 : v >= 1 ? 255 : v * 255 + 0.5); };
    return c(r) | c(g) << 8 | c(b) << 16 | c(a) << 24;
}

}  // namespace seatmark::import
