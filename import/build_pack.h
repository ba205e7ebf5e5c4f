#pragma once
// From imported meshes to what a pack stores: positions checked (finite) and welded exactly,
// degenerate triangles kept,
// normals and feature edges by the crease rule the procedural parts use
// (workloads::to_render_mesh), meshes no part uses dropped.
#include <cstdint>
#include <functional>
#include <string>

#include "import/model.h"
#include "pack/pack_writer.h"

namespace seatmark::import {

struct BuildStats {
    uint64_t source_triangles = 0;  // as imported, over the unique meshes
    uint64_t degenerate = 0;        // of those, with two corners at one position (kept: the source draws them)
};

// `source` names the input in messages. progress(done, total) is called as meshes finish.
pack::PackContents build_pack(ImportedModel model, double crease_deg, const std::string& source, BuildStats& stats,
                              const std::function<void(size_t, size_t)>& progress = {});

}  // namespace seatmark::import
