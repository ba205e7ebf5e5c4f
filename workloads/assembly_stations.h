#pragma once
// The stations of the procedural assembly (workloads/assembly.cpp lays them out): the mesh
// library that shares meshes between equal parts, the detail level chosen from the triangle
// budget, and the station and fixture builders. Internal to workloads/.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/assembly.h"
#include "workloads/mesh.h"
#include "workloads/primitives.h"

namespace seatmark::workloads::stations {


using prim::Xf;

// Tessellation and station size chosen from the budget, so small budgets still look mechanical
// (coarse but closed, round things at least 16 segments) and large ones get fine curves.
struct Detail {
    int S;            // segments of large round features (multiple of 8)
    int Sf;           // segments of fastener shanks and washers (multiple of 8)
    int hex_n;        // samples around nuts and hex heads (multiple of 6)
    int head_n;       // samples around bolt heads: 6 = plain prism at the smallest budgets
    int gear_detail;  // 0..3, see gear_outline
    int size_class;   // 0 compact stations, 1 normal, 2 large
};

Detail detail_for(uint64_t budget);

// Meshes keyed by their parameters: parts with equal parameters share one mesh (instancing).
// std::map: lookups only, never iterated, so no hash-order effects on the output.
class Library {
public:
    template <class Build>
    uint32_t get(const std::string& key, Build&& build) {
        auto it = index_.find(key);
        if (it != index_.end()) return it->second;
        const uint32_t id = static_cast<uint32_t>(meshes.size());
        meshes.push_back(build());
        tris.push_back(meshes.back().triangles.size() / 3);
        index_.emplace(key, id);
        return id;
    }
    std::vector<Mesh> meshes;
    std::vector<uint64_t> tris;

private:
    std::map<std::string, uint32_t> index_;
};

struct PartDraft {
    uint32_t mesh;
    Xf xf;
    uint32_t rgba;
    PartKind kind;
};

// One station: a base plate carrying supports, shafts and gears, plus fastener sets for its
// plate holes that the budget fill may or may not use. Station-local frame: plate top at
// y = 0, plate over x in [0, width], z in [0, depth].
struct Station {
    std::vector<PartDraft> core;
    uint64_t core_tris = 0;
    std::vector<std::vector<PartDraft>> sets;  // bolt + 2 washers + nut per hole, fill order
    std::vector<uint64_t> set_tris;
    double width = 0, depth = 0;
};

// A fixture plate: a small bolted plate, used to fill what is left of the budget when a
// whole station no longer fits. Sized down until its plate fits into `room`.
Station build_fixture(Library& lib, const Detail& det, uint64_t seed, uint64_t index, uint64_t room);

// Station `index` of the assembly for `seed`; `minimal` is the form tried when the full one
// exceeds the budget.
Station build_station(Library& lib, const Detail& det, uint64_t seed, uint64_t index, bool minimal);

}  // namespace seatmark::workloads::stations
