#include "client/model_scene.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/child_process.h"
#include "common/errors.h"
#include "common/file_hash.h"
#include "common/input_file.h"
#include "common/self_exe.h"
#include "common/user_dirs.h"

namespace seatmark::client {

namespace {

bool ends_with_ci(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
}

std::string cache_dir() {
    if (const char* d = std::getenv("SEATMARK_PACK_CACHE"); d && *d) return d;
    return (std::filesystem::path(user_cache_dir()) / "seatmark" / "packs").string();
}

void run_pack(const std::string& source, const std::string& out) {
    // The `seatmark` binary beside this one (the session may run from a leaner executable).
    const int status = run_child({sibling_exe("seatmark"), "pack", source, "--out", out, "--quiet"});
    if (status != 0)
        throw InputError(source + ": packing it for this session failed (see the message above); try 'seatmark pack " +
                         source + " --out FILE.smpack' and name the pack instead");
}

}  // namespace

std::string model_pack_path(const std::string& model, const std::function<bool()>& stop) {
    if (ends_with_ci(model, ".smpack")) return model;
    check_input_file(model, "model", max_model_bytes);  // a regular file: /dev/zero would be hashed forever
    const std::string dir = cache_dir();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw InputError(dir + ": cannot create the pack cache (" + ec.message() + "); set SEATMARK_PACK_CACHE");
    const std::string pack = (std::filesystem::path(dir) / (xxh3_hex(file_xxh3(model, stop)) + ".smpack")).string();
    // Thirty sessions starting on one new model: one packs it, the others wait for it.
    const std::string lock = pack + ".lock";
    std::unique_ptr<FileLock> held;
    try {
        held = std::make_unique<FileLock>(lock);
    } catch (const FileError& e) {
        throw InputError(lock + ": cannot open (" + e.what() + ")");
    }
    bool usable = false;
    if (file_readable(pack)) {
        try {
            pack::read_pack_header(pack);
            usable = true;
        } catch (const InputError&) {
            usable = false;  // damaged or from another version: make it again
        }
    }
    if (!usable) run_pack(model, pack);
    return pack;
}

std::unique_ptr<pack::PackFile> open_model(const std::string& model, const std::function<bool()>& stop) {
    return std::make_unique<pack::PackFile>(model_pack_path(model, stop));
}

workloads::Assembly pack_outline(const pack::PackFile& p) {
    workloads::Assembly a;
    a.bounds = p.bounds();
    a.triangles = p.header().triangles;
    a.edges = p.header().edges;
    a.parts.resize(p.parts().size());
    for (size_t i = 0; i < a.parts.size(); ++i) {
        auto& part = a.parts[i];
        part.mesh = p.parts()[i].mesh;
        std::memcpy(part.transform.data(), p.instances()[i].model, sizeof part.transform);
        part.rgba = p.instances()[i].rgba;
        part.id = p.instances()[i].id;
    }
    return a;
}

}  // namespace seatmark::client
