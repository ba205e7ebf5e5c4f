#include "import/pack_run.h"

#include <chrono>
#include <memory>
#include <cinttypes>
#include <cstdio>
#include <unordered_set>

#include <nlohmann/json.hpp>
#include <unistd.h>
#include <xxhash.h>

#include "common/errors.h"
#include "common/file_hash.h"
#include "common/output_file.h"
#include "import/build_pack.h"

namespace seatmark::import {

namespace {

double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Appends b's meshes and parts to a.
void merge(ImportedModel& a, ImportedModel&& b, bool y_up) {
    const uint32_t base = uint32_t(a.meshes.size());
    const Matrix z_to_y{1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
    const uint32_t part_base = uint32_t(a.parts.size());
    for (auto& m : b.meshes) a.meshes.push_back(std::move(m));
    for (auto& n : b.mesh_names) a.mesh_names.push_back(std::move(n));
    for (auto& p : b.parts) {
        p.mesh += base;
        if (p.piece_of != ImportedPart::no_piece) p.piece_of += part_base;
        if (!y_up) p.transform = multiply(z_to_y, p.transform);
        a.parts.push_back(std::move(p));
    }
    for (auto& n : b.notes) add_note(a.notes, n);
}

}  // namespace

PackSummary pack_models(const PackOptions& o) {
    PackSummary s;
    const bool tty = !o.quiet && ::isatty(2);
    auto say = [&](const std::string& line) {
        if (o.quiet) return;
        if (tty)
            std::fprintf(stderr, "\r\033[Kseatmark pack: %s", line.c_str());
        else
            std::fprintf(stderr, "seatmark pack: %s\n", line.c_str());
    };
    for (const auto& in : o.inputs)
        if (!is_supported(in))
            throw InputError(in + ": unknown model format (expected .gltf, .glb, .obj, .stl, .step, .stp, .iges or .igs)");
    // Before any import: the outputs may be none of the inputs (`pack a.obj --out a.obj`).
    check_output_path(o.out, "--out", o.inputs);
    if (!o.json_path.empty() && o.json_path != "-") check_output_path(o.json_path, "--json", o.inputs);

    auto t = std::chrono::steady_clock::now();
    ImportedModel all;
    all.y_up = true;  // each input is turned Y-up as it is merged
    // Owned, so a model that fails to import (an exception) does not leak it (ASan found that).
    std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> h(XXH3_createState(), &XXH3_freeState);
    XXH3_64bits_reset(h.get());
    for (const auto& in : o.inputs) {
        say("reading " + in);
        ImportedModel m = import_file(in, o.cad, say);
        const uint64_t fh = file_xxh3(in);
        XXH3_64bits_update(h.get(), &fh, sizeof fh);
        const bool y_up = o.up == "y" || (o.up == "auto" && m.y_up);
        merge(all, std::move(m), y_up);
    }
    s.source_xxh3 = XXH3_64bits_digest(h.get());
    s.import_s = since(t);

    t = std::chrono::steady_clock::now();
    BuildStats stats;
    const std::string source = o.inputs.size() == 1 ? o.inputs[0] : o.inputs[0] + " (+" + std::to_string(o.inputs.size() - 1) + ")";
    s.notes = all.notes;
    auto contents = build_pack(std::move(all), o.cad.crease_deg, source, stats, [&](size_t done, size_t total) {
        say("normals and feature edges: " + std::to_string(done) + "/" + std::to_string(total) + " meshes");
    });
    contents.source_xxh3 = s.source_xxh3;
    s.build_s = since(t);

    t = std::chrono::steady_clock::now();
    say("writing " + o.out);
    auto w = pack::write_pack(contents, o.out);
    s.write_s = since(t);
    if (tty) std::fprintf(stderr, "\r\033[K");

    std::unordered_set<uint32_t> ids;
    for (const auto& p : contents.parts) ids.insert(p.id);
    s.parts = ids.size();
    s.pieces = contents.parts.size();
    s.meshes = contents.meshes.size();
    s.triangles = w.triangles;
    s.edges = w.edges;
    s.unique_triangles = stats.source_triangles;
    s.degenerate = stats.degenerate;
    s.file_bytes = w.file_bytes;
    s.payload_xxh3 = w.payload_xxh3;
    return s;
}

int run_pack(const PackOptions& o) {
    const PackSummary s = pack_models(o);
    nlohmann::json j = {{"out", o.out},
                        {"inputs", o.inputs},
                        {"parts", s.parts},
                        {"pieces", s.pieces},
                        {"unique_meshes", s.meshes},
                        {"triangles", s.triangles},
                        {"unique_triangles", s.unique_triangles},
                        {"degenerate", s.degenerate},
                        {"edges", s.edges},
                        {"file_bytes", s.file_bytes},
                        {"payload_xxh3", xxh3_hex(s.payload_xxh3)},
                        {"source_xxh3", xxh3_hex(s.source_xxh3)},
                        {"seconds", {{"import", s.import_s}, {"normals_edges", s.build_s}, {"write", s.write_s}}},
                        {"notes", s.notes}};
    if (!o.json_path.empty() && o.json_path != "-") write_output_file(o.json_path, j.dump(2) + "\n", "--json");
    if (o.json_path == "-") {
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf("packed     %s -> %s (%.1f MB, payload XXH3 %s)\n", o.inputs.size() == 1 ? o.inputs[0].c_str() : (std::to_string(o.inputs.size()) + " files").c_str(),
                o.out.c_str(), double(s.file_bytes) / 1e6, xxh3_hex(s.payload_xxh3).c_str());
    std::printf("parts      %" PRIu64 " using %" PRIu64 " unique meshes (instances stored once)", s.parts, s.meshes);
    if (s.pieces != s.parts) std::printf(", drawn as %" PRIu64 " pieces (one per face colour)", s.pieces);
    std::printf("\n");
    std::printf("triangles  %" PRIu64 " drawn per frame, %" PRIu64 " stored%s\n", s.triangles, s.unique_triangles,
                s.degenerate ? (" (" + std::to_string(s.degenerate) + " degenerate, kept)").c_str() : "");
    std::printf("edges      %" PRIu64 " feature edge segments drawn per frame\n", s.edges);
    std::printf("time       import %.2f s, normals+edges %.2f s, write %.2f s\n", s.import_s, s.build_s, s.write_s);
    for (const auto& n : s.notes) std::printf("note       %s\n", n.c_str());
    return 0;
}

}  // namespace seatmark::import
