#include "workloads/assembly.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "workloads/assembly_stations.h"
#include "workloads/primitives.h"

namespace seatmark::workloads {

namespace {

using namespace prim;
using namespace stations;

void hash_bytes(XXH3_state_t* s, const void* p, size_t n) { XXH3_64bits_update(s, p, n); }
template <class T>
void hash_value(XXH3_state_t* s, const T& v) {
    hash_bytes(s, &v, sizeof v);
}

}  // namespace

Assembly generate_assembly(const AssemblySpec& spec) {
    const uint64_t budget = std::max<uint64_t>(spec.triangle_budget, 1000);
    const Detail det = detail_for(budget);
    Library lib;

    struct Placed {
        Station st;
        size_t next_set = 0;  // sets before this one are in the assembly
        double ox = 0, oz = 0;
    };
    std::vector<Placed> placed;
    uint64_t total = 0;
    auto place = [&](Station&& st) {
        total += st.core_tris;
        placed.push_back({std::move(st), 0, 0, 0});
    };
    auto take_set = [&](Placed& pl) {
        total += pl.st.set_tris[pl.next_set];
        ++pl.next_set;
    };

    // Stations while their cores fit, each filling up to 3/4 of its holes; a station that does
    // not fit is retried in its minimal form; then the remaining holes are filled round-robin.
    for (uint64_t i = 0; i < 1000000; ++i) {
        Station st = build_station(lib, det, spec.seed, i, false);
        if (total + st.core_tris > budget) {
            st = build_station(lib, det, spec.seed, i, true);
            if (total + st.core_tris > budget && !placed.empty()) break;
        }
        place(std::move(st));
        Placed& pl = placed.back();
        const size_t quota = (pl.st.sets.size() * 3 + 3) / 4;
        while (pl.next_set < quota && total + pl.st.set_tris[pl.next_set] <= budget) take_set(pl);
        if (total >= budget) break;
    }
    auto fill_round_robin = [&] {
        for (bool any = true; any;) {
            any = false;
            for (Placed& pl : placed) {
                if (pl.next_set < pl.st.sets.size() && total + pl.st.set_tris[pl.next_set] <= budget) {
                    take_set(pl);
                    any = true;
                }
            }
        }
    };
    fill_round_robin();
    // Still short (small budgets, where one station is a large step): fixture plates.
    for (uint64_t i = 0; i < 10000 && total < budget - budget / 20; ++i) {
        Station st = build_fixture(lib, det, spec.seed, i, budget - total);
        if (total + st.core_tris > budget) break;
        place(std::move(st));
        fill_round_robin();
    }

    // Layout: rows of stations, left to right; the row width is picked (from a few tries) so
    // the whole field comes out about square, which suits an orbiting camera.
    const double gap = 60;
    double area = 0;
    for (const Placed& pl : placed) area += (pl.st.width + gap) * (pl.st.depth + gap);
    double max_x = 0, max_z = 0;
    auto layout = [&](double row_width) {
        double cursor_x = 0, cursor_z = 0, row_depth = 0;
        max_x = max_z = 0;
        for (Placed& pl : placed) {
            if (cursor_x > 0 && cursor_x + pl.st.width > row_width) {
                cursor_x = 0;
                cursor_z += row_depth + gap;
                row_depth = 0;
            }
            pl.ox = cursor_x;
            pl.oz = cursor_z;
            cursor_x += pl.st.width + gap;
            row_depth = std::max(row_depth, pl.st.depth);
            max_x = std::max(max_x, pl.ox + pl.st.width);
            max_z = std::max(max_z, pl.oz + pl.st.depth);
        }
        return std::max(max_x, max_z);
    };
    double best_width = std::sqrt(area), best = layout(best_width);
    for (int k = 0; k <= 24; ++k) {
        const double w = std::sqrt(area) * (0.8 + 0.05 * k);
        const double side = layout(w);
        if (side < best) {
            best = side;
            best_width = w;
        }
    }
    layout(best_width);
    // Centred on the origin in x and z (y stays: plate tops at y = 0).
    const Xf centre = Xf::translate(-max_x / 2, 0, -max_z / 2);
    std::vector<PartDraft> chosen;
    for (const Placed& pl : placed) {
        const Xf at = centre * Xf::translate(pl.ox, 0, pl.oz);
        for (const PartDraft& d : pl.st.core) chosen.push_back({d.mesh, at * d.xf, d.rgba, d.kind});
        for (size_t k = 0; k < pl.next_set; ++k)
            for (const PartDraft& d : pl.st.sets[k]) chosen.push_back({d.mesh, at * d.xf, d.rgba, d.kind});
    }

    // Only the meshes parts use, in library order.
    std::vector<uint32_t> remap(lib.meshes.size(), UINT32_MAX);
    for (const PartDraft& d : chosen) remap[d.mesh] = 0;
    Assembly out;
    for (size_t i = 0; i < lib.meshes.size(); ++i) {
        if (remap[i] == UINT32_MAX) continue;
        remap[i] = static_cast<uint32_t>(out.meshes.size());
        out.meshes.push_back(to_render_mesh(lib.meshes[i], spec.crease_angle_deg));
        lib.meshes[i] = Mesh{};  // keep the peak memory near the output's own size
    }
    out.parts.reserve(chosen.size());
    for (size_t i = 0; i < chosen.size(); ++i) {
        Part p;
        p.mesh = remap[chosen[i].mesh];
        p.transform = chosen[i].xf.matrix();
        p.rgba = chosen[i].rgba;
        p.id = static_cast<uint32_t>(i + 1);
        p.kind = chosen[i].kind;
        out.parts.push_back(p);
    }
    std::stable_sort(out.parts.begin(), out.parts.end(), [](const Part& a, const Part& b) { return a.mesh < b.mesh; });

    bool first = true;
    for (const Part& p : out.parts) {
        const RenderMesh& rm = out.meshes[p.mesh];
        out.triangles += rm.indices.size() / 3;
        out.edges += rm.edges.size() / 2;
        // Exact: every vertex through the part's matrix, the same float arithmetic a test
        // (or a shader) uses, so the box is tight for the camera to frame.
        const auto& M = p.transform;
        for (const Vertex& v : rm.vertices) {
            for (size_t r = 0; r < 3; ++r) {
                const float w = M[r] * v.position[0] + M[4 + r] * v.position[1] + M[8 + r] * v.position[2] + M[12 + r];
                out.bounds.min[r] = first ? w : std::min(out.bounds.min[r], w);
                out.bounds.max[r] = first ? w : std::max(out.bounds.max[r], w);
            }
            first = false;
        }
    }
    return out;
}

uint64_t assembly_hash(const Assembly& a) {
    XXH3_state_t* s = XXH3_createState();
    XXH3_64bits_reset(s);
    hash_value(s, uint64_t(a.meshes.size()));
    for (const RenderMesh& m : a.meshes) {
        hash_value(s, uint64_t(m.vertices.size()));
        for (const Vertex& v : m.vertices) {
            hash_bytes(s, v.position, sizeof v.position);
            hash_bytes(s, v.normal, sizeof v.normal);
        }
        hash_value(s, uint64_t(m.indices.size()));
        hash_bytes(s, m.indices.data(), m.indices.size() * sizeof(uint32_t));
        hash_value(s, uint64_t(m.edges.size()));
        hash_bytes(s, m.edges.data(), m.edges.size() * sizeof(uint32_t));
        hash_bytes(s, m.bounds.min.data(), sizeof(float) * 3);
        hash_bytes(s, m.bounds.max.data(), sizeof(float) * 3);
    }
    hash_value(s, uint64_t(a.parts.size()));
    for (const Part& p : a.parts) {  // field by field: Part has padding
        hash_value(s, p.mesh);
        hash_bytes(s, p.transform.data(), sizeof(float) * 16);
        hash_value(s, p.rgba);
        hash_value(s, p.id);
        hash_value(s, static_cast<uint8_t>(p.kind));
    }
    hash_bytes(s, a.bounds.min.data(), sizeof(float) * 3);
    hash_bytes(s, a.bounds.max.data(), sizeof(float) * 3);
    hash_value(s, a.triangles);
    hash_value(s, a.edges);
    const uint64_t h = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return h;
}

}  // namespace seatmark::workloads
