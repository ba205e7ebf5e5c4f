#pragma once
// Picks the reader by file extension: .gltf/.glb, .obj, .stl, and .step/.stp/.iges/.igs through
// the OpenCASCADE child process (cad/occt_mesher.cpp).
#include <functional>
#include <string>

#include "import/model.h"

namespace seatmark::import {

struct CadOptions {
    double deflection = 0.1;   // absolute linear deflection, model units (mm in most CAD files)
    double angle_deg = 20;     // angular deflection
    double timeout_s = 60;     // per part; the mesher is killed after it and the part named
    double crease_deg = 30;
};

bool is_cad(const std::string& path);
bool is_supported(const std::string& path);

// `status` receives one-line progress ("meshing part 3/40 'bolt'").
ImportedModel import_file(const std::string& path, const CadOptions& cad,
                          const std::function<void(const std::string&)>& status = {});

}  // namespace seatmark::import
