#pragma once
// One reader per format; each throws InputError naming the file and what was wrong.
#include <string>

#include "import/model.h"

namespace seatmark::import {

// glTF 2.0 through tinygltf: .gltf with external or embedded buffers, and .glb.
ImportedModel import_gltf(const std::string& path);
// Wavefront OBJ through tinyobjloader, with MTL diffuse colours; one part per object/group and material.
ImportedModel import_obj(const std::string& path);
// STL, binary or ASCII; one part per ASCII solid.
ImportedModel import_stl(const std::string& path);

}  // namespace seatmark::import
