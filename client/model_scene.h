#pragma once
// A user's model for the session: a .smpack mapped as it lies, or a source model (glTF, OBJ, STL,
// STEP, IGES) packed on first use by a `seatmark pack` child into a cache keyed by the source's
// content hash, so the session itself never links an importer.
#include <functional>
#include <memory>
#include <string>

#include "pack/pack_reader.h"
#include "workloads/assembly.h"

namespace seatmark::client {

// The pack to open for `model`: itself when it is a .smpack, else the cached pack of its
// content (made now, once, under a lock, when missing). Throws InputError naming the file, and
// HashStopped when `stop` says so while the source is hashed (common/file_hash.h).
std::string model_pack_path(const std::string& model, const std::function<bool()>& stop = {});

std::unique_ptr<pack::PackFile> open_model(const std::string& model, const std::function<bool()>& stop = {});

// What the interaction and the summary need of a pack (bounds, part ids, counts); no meshes:
// the renderer uploads those straight from the mapping.
workloads::Assembly pack_outline(const pack::PackFile& p);

}  // namespace seatmark::client
