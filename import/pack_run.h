#pragma once
// Packs source models into one .smpack: import each input, merge, normals and feature edges,
// write; progress on stderr, a summary on stdout, optionally as JSON.
#include <string>
#include <vector>

#include "import/import_file.h"

namespace seatmark::import {

struct PackOptions {
    std::vector<std::string> inputs;
    std::string out;
    CadOptions cad;
    std::string up = "auto";   // auto (glTF/OBJ y, STL/STEP/IGES z), y, z
    std::string json_path;     // "-" for stdout
    bool quiet = false;
};

struct PackSummary {
    uint64_t parts = 0;   // source parts (distinct ids)
    uint64_t pieces = 0;  // drawn instances: a part whose faces carry k colours is k pieces
    uint64_t meshes = 0, triangles = 0, edges = 0, unique_triangles = 0, degenerate = 0, file_bytes = 0;
    uint64_t payload_xxh3 = 0, source_xxh3 = 0;
    double import_s = 0, build_s = 0, write_s = 0;
    std::vector<std::string> notes;
};

PackSummary pack_models(const PackOptions& o);
int run_pack(const PackOptions& o);

}  // namespace seatmark::import
