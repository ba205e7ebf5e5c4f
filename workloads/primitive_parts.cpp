// Plates with hole patterns and mechanical parts (gears, pillow blocks, fasteners), built
// from the loops, lofts and polygons of primitives.cpp.
#include "workloads/primitives.h"

#include <algorithm>
#include <cmath>

namespace seatmark::workloads::prim {

// ---------------------------------------------------------------- plates

Mesh plate_with_holes(int cols, int rows, double pitch, double thickness, const std::vector<uint8_t>& hole,
                      double hole_r, int n) {
    n = std::max(8, n / 8 * 8);
    const int e = n / 8;  // samples from a side's middle to its corner
    // tan of the sample angles within a side, symmetric by construction, exactly 1 at corners.
    std::vector<double> tanj(static_cast<size_t>(e + 1));
    for (int j = 0; j <= e; ++j) {
        double s, c;
        sincos_turns(double(j) / n, s, c);
        tanj[static_cast<size_t>(j)] = j == e ? 1.0 : s / c;
    }
    auto tan_at = [&](int j) { return j < 0 ? -tanj[static_cast<size_t>(-j)] : tanj[static_cast<size_t>(j)]; };
    std::vector<double> xs(static_cast<size_t>(cols + 1)), zs(static_cast<size_t>(rows + 1));
    for (int i = 0; i <= cols; ++i) xs[static_cast<size_t>(i)] = i * pitch;
    for (int i = 0; i <= rows; ++i) zs[static_cast<size_t>(i)] = i * pitch;
    std::vector<double> hs(static_cast<size_t>(n)), hc(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) sincos_turns(double(k) / n, hs[static_cast<size_t>(k)], hc[static_cast<size_t>(k)]);
    const double h = pitch * 0.5;
    const float yt = 0.0f, yb = static_cast<float>(-thickness);

    Mesh m;
    auto add = [&](double x, float y, double z) {
        m.positions.push_back({static_cast<float>(x), y, static_cast<float>(z)});
        return static_cast<uint32_t>(m.positions.size() - 1);
    };
    auto tri = [&](uint32_t a, uint32_t b, uint32_t c) { m.triangles.insert(m.triangles.end(), {a, b, c}); };
    // Side of sample k (0 +Z, 1 +X, 2 -Z, 3 -X) and its offset j from the side's middle.
    auto side_of = [&](int k, int& j) {
        int s = ((k + e) / (2 * e)) % 4;
        j = k - s * 2 * e;
        if (j > e) j -= n;
        return s;
    };
    std::vector<uint32_t> ot(static_cast<size_t>(n)), ob(static_cast<size_t>(n)), it(static_cast<size_t>(n)),
        ib(static_cast<size_t>(n));
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const double x0 = xs[static_cast<size_t>(c)], x1 = xs[static_cast<size_t>(c + 1)];
            const double z0 = zs[static_cast<size_t>(r)], z1 = zs[static_cast<size_t>(r + 1)];
            const double cx = (x0 + x1) * 0.5, cz = (z0 + z1) * 0.5;
            for (int k = 0; k < n; ++k) {
                int j;
                const int s = side_of(k, j);
                double x, z;
                if (j == e || j == -e) {  // a corner: straight from the grid lines
                    const int kk = (k + n) % n;
                    // corners at k = e (+X+Z), 3e (+X-Z), 5e (-X-Z), 7e (-X+Z)
                    x = (kk == e || kk == 3 * e) ? x1 : x0;
                    z = (kk == e || kk == 7 * e) ? z1 : z0;
                } else {
                    const double t = h * tan_at(j);
                    switch (s) {
                        case 0: x = cx + t; z = z1; break;
                        case 1: x = x1; z = cz - t; break;
                        case 2: x = cx - t; z = z0; break;
                        default: x = x0; z = cz + t; break;
                    }
                }
                ot[static_cast<size_t>(k)] = add(x, yt, z);
                ob[static_cast<size_t>(k)] = add(x, yb, z);
            }
            const bool has_hole = hole[static_cast<size_t>(r * cols + c)] != 0;
            if (has_hole) {
                for (int k = 0; k < n; ++k) {
                    const double x = cx + hole_r * hs[static_cast<size_t>(k)];
                    const double z = cz + hole_r * hc[static_cast<size_t>(k)];
                    it[static_cast<size_t>(k)] = add(x, yt, z);
                    ib[static_cast<size_t>(k)] = add(x, yb, z);
                }
            }
            const uint32_t ct = has_hole ? 0 : add(cx, yt, cz);
            const uint32_t cb = has_hole ? 0 : add(cx, yb, cz);
            for (int k = 0; k < n; ++k) {
                const size_t a = static_cast<size_t>(k), b = static_cast<size_t>((k + 1) % n);
                if (has_hole) {
                    tri(ot[a], ot[b], it[b]);  // top
                    tri(ot[a], it[b], it[a]);
                    tri(it[a], it[b], ib[b]);  // hole wall
                    tri(it[a], ib[b], ib[a]);
                    tri(ib[a], ib[b], ob[b]);  // bottom
                    tri(ib[a], ob[b], ob[a]);
                } else {
                    tri(ct, ot[a], ot[b]);
                    tri(cb, ob[b], ob[a]);
                }
                // Outer wall where this segment lies on the plate's perimeter.
                int j;
                const int s = side_of(k, j);
                // j runs over [-e, e): the segment k..k+1 lies on side s.
                const bool perimeter = (s == 0 && r == rows - 1) || (s == 1 && c == cols - 1) ||
                                       (s == 2 && r == 0) || (s == 3 && c == 0);
                if (perimeter) {
                    tri(ob[a], ob[b], ot[b]);
                    tri(ob[a], ot[b], ot[a]);
                }
            }
        }
    }
    return weld(m, 1e-3f);
}

// ---------------------------------------------------------------- parts

int gear_samples_per_tooth(int detail) {
    static const int k[4] = {4, 8, 11, 15};
    return k[std::clamp(detail, 0, 3)];
}

Loop gear_outline(int teeth, double module, int detail) {
    static const int nf_t[4] = {0, 1, 2, 3}, nt_t[4] = {0, 1, 1, 2}, nr_t[4] = {0, 1, 2, 3};
    detail = std::clamp(detail, 0, 3);
    const int nf = nf_t[detail], nt = nt_t[detail], nr = nr_t[detail];
    const double ra = module * (teeth * 0.5 + 1.0), rf = module * (teeth * 0.5 - 1.25);
    const double wr = 0.625, wt = 0.22;  // tooth width at root and tip, in pitches: 0.5 at the pitch circle
    Loop l;
    l.reserve(static_cast<size_t>(teeth * gear_samples_per_tooth(detail)));
    auto put = [&](int tooth, double u, double r) {
        double s, c;
        sincos_turns((tooth + u) / teeth, s, c);
        l.push_back({r * s, r * c});
    };
    auto half_width = [&](double t) { return wr * 0.5 - (wr - wt) * 0.5 * t * t; };  // convex flanks
    for (int j = 0; j < teeth; ++j) {
        for (int i = 0; i < nr; ++i)  // root arc, from the previous tooth to this one
            put(j, -wr * 0.5 - (1.0 - wr) * double(nr - i) / (nr + 1), rf);
        put(j, -wr * 0.5, rf);
        for (int i = 1; i <= nf; ++i) {
            double t = double(i) / (nf + 1);
            put(j, -half_width(t), rf + (ra - rf) * t);
        }
        put(j, -wt * 0.5, ra);
        for (int i = 1; i <= nt; ++i) put(j, -wt * 0.5 + wt * double(i) / (nt + 1), ra);
        put(j, wt * 0.5, ra);
        for (int i = nf; i >= 1; --i) {
            double t = double(i) / (nf + 1);
            put(j, half_width(t), rf + (ra - rf) * t);
        }
        put(j, wr * 0.5, rf);
    }
    return l;
}

Loop pillow_outline(double a, double depth, int n) {
    n = std::max(8, n / 4 * 4);
    Loop l;
    // Going round by theta: upper arc, right side, bottom, left side, upper arc again. The two
    // bottom corners are inserted as extra samples where the outline passes them.
    bool right_done = false, left_done = false;
    auto right = [&] { if (!right_done) l.push_back({a, -depth}); right_done = true; };
    auto left = [&] { right(); if (!left_done) l.push_back({-a, -depth}); left_done = true; };
    for (int k = 0; k < n; ++k) {
        double s, c;
        sincos_turns(double(k) / n, s, c);
        if (c >= 0) {  // upper half: the arc (at theta = 90 and 270 deg exactly (+-a, 0))
            if (2 * k > n) left();
            l.push_back({a * s, a * c});
            continue;
        }
        // The ray (s, c) meets a side at a/|s| and the bottom at depth/|c|.
        const double side_t = a * -c, bottom_t = depth * std::fabs(s);
        if (std::fabs(side_t - bottom_t) <= 1e-9 * (a + depth)) {  // exactly through a corner
            if (s > 0) right(); else left();
            continue;
        }
        if (side_t < bottom_t) {  // a side
            if (s < 0) left();
            l.push_back({s > 0 ? a : -a, a * c / std::fabs(s)});
        } else {  // the bottom
            right();
            l.push_back({depth * s / -c, -depth});
        }
    }
    return l;
}

Mesh hex_bolt(double d, double af, double head_h, double length, int hex_n, int shank_n) {
    const Loop hex = hexagon(af, hex_n);
    const Loop pole{{0.0, 0.0}};
    Mesh head;
    if (hex_n < 12) {
        head = loft({{0, pole}, {0, hex}, {head_h, hex}, {head_h, pole}}, false);
    } else {
        const double rc = af * 0.5 * 0.95;  // chamfer circle, slightly inside the flats
        const double ch = std::min(head_h * 0.3, (af / std::sqrt(3.0) - rc) * 0.577);
        head = loft({{0, pole}, {0, hex}, {head_h - ch, hex}, {head_h, clamp_radius(hex, rc)}, {head_h, pole}}, false);
    }
    const double r = d * 0.5, c = d * 0.1;
    Mesh shank = lathe({{0, -length}, {r - c, -length}, {r, -length + c}, {r, head_h * 0.5}, {0, head_h * 0.5}}, shank_n);
    append(head, shank);
    return head;
}

Mesh hex_nut(double af, double height, double bore_r, int n, bool chamfer) {
    const Loop hex = hexagon(af, n);
    const Loop bore = at_radius(hex, bore_r);
    if (!chamfer || n < 12) return loft({{0, hex}, {height, hex}, {height, bore}, {0, bore}}, true);
    const double rc = af * 0.5 * 0.95;
    const double ch = std::min(height * 0.2, (af / std::sqrt(3.0) - rc) * 0.577);
    const Loop cut = clamp_radius(hex, rc);
    return loft({{0, cut}, {ch, hex}, {height - ch, hex}, {height, cut}, {height, bore}, {0, bore}}, true);
}

Mesh washer(double inner_r, double outer_r, double thickness, int n) {
    return revolve_ring({{inner_r, 0}, {outer_r, 0}, {outer_r, thickness}, {inner_r, thickness}}, n);
}

}  // namespace seatmark::workloads::prim
