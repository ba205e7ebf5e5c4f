#include "workloads/mesh.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "workloads/primitives.h"

namespace seatmark::workloads {

namespace {

constexpr uint32_t none = std::numeric_limits<uint32_t>::max();

uint64_t hash_cell(int64_t x, int64_t y, int64_t z) {
    uint64_t h = prim::mix64(static_cast<uint64_t>(x) * 0x9e3779b97f4a7c15ULL);
    h = prim::mix64(h ^ (static_cast<uint64_t>(y) * 0xc2b2ae3d27d4eb4fULL));
    return prim::mix64(h ^ (static_cast<uint64_t>(z) * 0x165667b19e3779f9ULL));
}

// Vertex -> corners (3 * triangle + corner) adjacency, in triangle order (deterministic).
struct Adjacency {
    std::vector<uint32_t> offset;  // positions.size() + 1
    std::vector<uint32_t> corner;

    explicit Adjacency(const Mesh& m) : offset(m.positions.size() + 1, 0), corner(m.triangles.size()) {
        for (uint32_t v : m.triangles) ++offset[v + 1];
        for (size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
        std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
        for (size_t k = 0; k < m.triangles.size(); ++k) corner[fill[m.triangles[k]]++] = static_cast<uint32_t>(k);
    }
};

struct FaceNormals {
    std::vector<std::array<double, 3>> unit;  // zero for degenerate triangles
    std::vector<std::array<double, 3>> area;  // cross product: twice the area, along the normal

    explicit FaceNormals(const Mesh& m) {
        const size_t nt = m.triangles.size() / 3;
        unit.resize(nt);
        area.resize(nt);
        for (size_t t = 0; t < nt; ++t) {
            const Vec3& a = m.positions[m.triangles[3 * t]];
            const Vec3& b = m.positions[m.triangles[3 * t + 1]];
            const Vec3& c = m.positions[m.triangles[3 * t + 2]];
            const double e1[3] = {double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]};
            const double e2[3] = {double(c[0]) - a[0], double(c[1]) - a[1], double(c[2]) - a[2]};
            const std::array<double, 3> n = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                             e1[0] * e2[1] - e1[1] * e2[0]};
            area[t] = n;
            const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            unit[t] = len > 0 ? std::array<double, 3>{n[0] / len, n[1] / len, n[2] / len}
                              : std::array<double, 3>{0, 0, 0};
        }
    }
};

double dot(const std::array<double, 3>& a, const std::array<double, 3>& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

struct FeatureEdge {
    uint32_t a, b;  // a < b
    uint32_t tri;   // the lowest-numbered triangle on the edge
};

// Every undirected edge is visited from the lowest-numbered triangle that has it; its
// triangles are those around `lo` that also contain `hi`.
std::vector<FeatureEdge> find_feature_edges(const Mesh& m, const Adjacency& adj, const FaceNormals& fn,
                                            double cos_limit) {
    std::vector<FeatureEdge> out;
    const size_t nt = m.triangles.size() / 3;
    for (size_t t = 0; t < nt; ++t) {
        for (int i = 0; i < 3; ++i) {
            const uint32_t a = m.triangles[3 * t + static_cast<size_t>(i)];
            const uint32_t b = m.triangles[3 * t + static_cast<size_t>((i + 1) % 3)];
            if (a == b) continue;
            const uint32_t lo = std::min(a, b), hi = std::max(a, b);
            uint32_t count = 0, first = none, other = none;
            for (uint32_t k = adj.offset[lo]; k < adj.offset[lo + 1]; ++k) {
                const uint32_t u = adj.corner[k] / 3;
                const uint32_t* tu = &m.triangles[3 * size_t(u)];
                if (tu[0] != hi && tu[1] != hi && tu[2] != hi) continue;
                if (u == first || u == other) continue;  // degenerate triangle listed twice at lo
                ++count;
                if (first == none || u < first) {
                    other = first;
                    first = u;
                } else if (other == none) {
                    other = u;
                }
            }
            if (first != t) continue;
            bool feature = count != 2;
            if (!feature) {
                const auto& n1 = fn.unit[first];
                const auto& n2 = fn.unit[other];
                const bool degenerate = dot(n1, n1) == 0 || dot(n2, n2) == 0;
                feature = !degenerate && dot(n1, n2) < cos_limit;
            }
            if (feature) out.push_back({lo, hi, static_cast<uint32_t>(t)});
        }
    }
    std::sort(out.begin(), out.end(), [](const FeatureEdge& x, const FeatureEdge& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
    out.erase(std::unique(out.begin(), out.end(),
                          [](const FeatureEdge& x, const FeatureEdge& y) { return x.a == y.a && x.b == y.b; }),
              out.end());
    return out;
}

}  // namespace

Mesh weld(const Mesh& m, float tolerance) {
    // Quantised hash grid with cells of 2 x tolerance: a vertex within `tolerance` (per axis)
    // of p lies in p's cell or in the neighbour on the side of the cell p is nearer to, so 8
    // cells are searched. Vertices are taken in order: output is deterministic.
    Mesh out;
    const size_t n = m.positions.size();
    std::vector<uint32_t> remap(n);
    const double tol = tolerance > 0 ? double(tolerance) : 0.0;
    const double cell = tol > 0 ? 2.0 * tol : 1.0;
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    struct Slot {
        int64_t x, y, z;
        uint32_t head;
    };
    std::vector<Slot> table(cap, Slot{0, 0, 0, none});
    std::vector<uint32_t> next;  // per output vertex: the next one in the same cell
    out.positions.reserve(n);
    next.reserve(n);
    auto find_slot = [&](int64_t x, int64_t y, int64_t z) -> Slot& {
        size_t i = hash_cell(x, y, z) & (cap - 1);
        while (table[i].head != none && (table[i].x != x || table[i].y != y || table[i].z != z)) i = (i + 1) & (cap - 1);
        return table[i];
    };
    for (size_t i = 0; i < n; ++i) {
        const Vec3& p = m.positions[i];
        int64_t q[3];
        int step[3];
        for (int a = 0; a < 3; ++a) {
            const double f = double(p[static_cast<size_t>(a)]) / cell;
            const double fl = std::floor(f);
            q[a] = static_cast<int64_t>(fl);
            step[a] = (f - fl) < 0.5 ? -1 : 1;
        }
        uint32_t found = none;
        for (int c = 0; c < 8 && found == none; ++c) {
            if (tol == 0 && c > 0) break;
            const Slot& s = find_slot(q[0] + ((c & 1) ? step[0] : 0), q[1] + ((c & 2) ? step[1] : 0),
                                      q[2] + ((c & 4) ? step[2] : 0));
            for (uint32_t v = s.head; v != none; v = next[v]) {
                const Vec3& w = out.positions[v];
                if (std::fabs(double(w[0]) - p[0]) <= tol && std::fabs(double(w[1]) - p[1]) <= tol &&
                    std::fabs(double(w[2]) - p[2]) <= tol) {
                    found = v;
                    break;
                }
            }
        }
        if (found == none) {
            found = static_cast<uint32_t>(out.positions.size());
            out.positions.push_back(p);
            Slot& s = find_slot(q[0], q[1], q[2]);
            next.push_back(s.head);  // first insertion: s.head == none
            s.x = q[0];
            s.y = q[1];
            s.z = q[2];
            s.head = found;
        }
        remap[i] = found;
    }
    out.triangles.reserve(m.triangles.size());
    for (size_t t = 0; t + 2 < m.triangles.size(); t += 3) {
        const uint32_t a = remap[m.triangles[t]], b = remap[m.triangles[t + 1]], c = remap[m.triangles[t + 2]];
        if (a == b || b == c || a == c) continue;  // collapsed by the merge: drop it
        out.triangles.insert(out.triangles.end(), {a, b, c});
    }
    return out;
}

void append(Mesh& into, const Mesh& other) {
    const uint32_t base = static_cast<uint32_t>(into.positions.size());
    into.positions.insert(into.positions.end(), other.positions.begin(), other.positions.end());
    into.triangles.reserve(into.triangles.size() + other.triangles.size());
    for (uint32_t i : other.triangles) into.triangles.push_back(i + base);
}

bool is_closed(const Mesh& m) {
    // Sorted directed edges must have no duplicates and equal the sorted reversed edges.
    if (m.triangles.size() % 3 != 0) return false;
    std::vector<uint64_t> fwd, rev;
    fwd.reserve(m.triangles.size());
    rev.reserve(m.triangles.size());
    for (size_t t = 0; t < m.triangles.size(); t += 3) {
        for (size_t i = 0; i < 3; ++i) {
            const uint64_t a = m.triangles[t + i], b = m.triangles[t + (i + 1) % 3];
            if (a == b || a >= m.positions.size()) return false;
            fwd.push_back(a << 32 | b);
            rev.push_back(b << 32 | a);
        }
    }
    std::sort(fwd.begin(), fwd.end());
    if (std::adjacent_find(fwd.begin(), fwd.end()) != fwd.end()) return false;
    std::sort(rev.begin(), rev.end());
    return fwd == rev;
}

std::vector<std::pair<uint32_t, uint32_t>> feature_edges(const Mesh& m, double angle_deg) {
    const Adjacency adj(m);
    const FaceNormals fn(m);
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const FeatureEdge& e : find_feature_edges(m, adj, fn, prim::cos_deg(angle_deg))) out.emplace_back(e.a, e.b);
    return out;
}

RenderMesh to_render_mesh(const Mesh& m, double crease_deg) {
    RenderMesh r;
    const Adjacency adj(m);
    const FaceNormals fn(m);
    const double cos_limit = prim::cos_deg(crease_deg);
    std::vector<uint32_t> corner_vertex(m.triangles.size(), none);
    r.vertices.reserve(m.positions.size() * 3 / 2);

    // Per position: for each corner, sum the area-weighted normals of the faces around the
    // vertex within the crease angle of the corner's face; corners whose normals come out
    // bit-identical share one render vertex.
    struct Seen {
        std::array<double, 3> face;  // a face normal already handled at this vertex...
        std::array<float, 3> normal; // ...and the vertex normal it produced
    };
    std::vector<Seen> seen;
    std::vector<uint32_t> made;  // render vertices of this position
    for (size_t v = 0; v < m.positions.size(); ++v) {
        seen.clear();
        made.clear();
        const uint32_t b = adj.offset[v], e = adj.offset[v + 1];
        for (uint32_t k = b; k < e; ++k) {
            const uint32_t ck = adj.corner[k];
            const auto& nt = fn.unit[ck / 3];
            std::array<float, 3> normal{};
            bool have = false;
            for (const Seen& s : seen) {
                if (s.face == nt) {
                    normal = s.normal;
                    have = true;
                    break;
                }
            }
            if (!have) {
                double sum[3] = {0, 0, 0};
                for (uint32_t j = b; j < e; ++j) {
                    const uint32_t f = adj.corner[j] / 3;
                    if (dot(nt, fn.unit[f]) >= cos_limit) {
                        sum[0] += fn.area[f][0];
                        sum[1] += fn.area[f][1];
                        sum[2] += fn.area[f][2];
                    }
                }
                double len = std::sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
                if (len > 0) {
                    normal = {float(sum[0] / len), float(sum[1] / len), float(sum[2] / len)};
                } else if (dot(nt, nt) > 0) {
                    normal = {float(nt[0]), float(nt[1]), float(nt[2])};
                } else {
                    normal = {0, 1, 0};  // degenerate face with nothing around it
                }
                seen.push_back({nt, normal});
            }
            uint32_t idx = none;
            for (uint32_t rv : made) {
                const Vertex& x = r.vertices[rv];
                if (x.normal[0] == normal[0] && x.normal[1] == normal[1] && x.normal[2] == normal[2]) {
                    idx = rv;
                    break;
                }
            }
            if (idx == none) {
                idx = static_cast<uint32_t>(r.vertices.size());
                Vertex x;
                std::memcpy(x.position, m.positions[v].data(), sizeof x.position);
                std::memcpy(x.normal, normal.data(), sizeof x.normal);
                r.vertices.push_back(x);
                made.push_back(idx);
            }
            corner_vertex[ck] = idx;
        }
    }
    r.indices = corner_vertex;

    for (const FeatureEdge& fe : find_feature_edges(m, adj, fn, cos_limit)) {
        uint32_t va = none, vb = none;
        for (size_t i = 0; i < 3; ++i) {
            const size_t ck = 3 * size_t(fe.tri) + i;
            if (m.triangles[ck] == fe.a) va = corner_vertex[ck];
            if (m.triangles[ck] == fe.b) vb = corner_vertex[ck];
        }
        r.edges.push_back(va);
        r.edges.push_back(vb);
    }

    if (!r.vertices.empty()) {
        Bounds bb;
        for (int a = 0; a < 3; ++a) bb.min[a] = bb.max[a] = r.vertices[0].position[a];
        for (const Vertex& x : r.vertices) {
            for (int a = 0; a < 3; ++a) {
                bb.min[a] = std::min(bb.min[a], x.position[a]);
                bb.max[a] = std::max(bb.max[a], x.position[a]);
            }
        }
        r.bounds = bb;
    }
    return r;
}

Bounds bounds_of(const Mesh& m) {
    Bounds bb;
    if (m.positions.empty()) return bb;
    bb.min = bb.max = m.positions[0];
    for (const Vec3& p : m.positions) {
        for (size_t a = 0; a < 3; ++a) {
            bb.min[a] = std::min(bb.min[a], p[a]);
            bb.max[a] = std::max(bb.max[a], p[a]);
        }
    }
    return bb;
}

}  // namespace seatmark::workloads
