#include "workloads/primitives.h"

#include <algorithm>
#include <cmath>

namespace seatmark::workloads::prim {

// ---------------------------------------------------------------- math

void sincos_turns(double turns, double& s, double& c) {
    // Reduce to a quarter turn around a multiple of 1/4 turn; every step here is exact
    // (floor, multiplication by powers of two, subtraction of nearby values).
    double t = turns - std::floor(turns);
    double q = std::floor(t * 4.0 + 0.5);
    double r = t - q * 0.25;  // [-1/8, 1/8] turn
    double x = r * (2.0 * pi);
    double x2 = x * x;
    // Taylor series to x^17 / x^16: error below 1e-18 on [-pi/4, pi/4].
    double sn = x * (1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 * (1.0 / 362880 +
                x2 * (-1.0 / 39916800 + x2 * (1.0 / 6227020800.0 + x2 * (-1.0 / 1307674368000.0 +
                x2 * (1.0 / 355687428096000.0)))))))));
    double cs = 1.0 + x2 * (-1.0 / 2 + x2 * (1.0 / 24 + x2 * (-1.0 / 720 + x2 * (1.0 / 40320 +
                x2 * (-1.0 / 3628800 + x2 * (1.0 / 479001600.0 + x2 * (-1.0 / 87178291200.0 +
                x2 * (1.0 / 20922789888000.0))))))));
    switch (static_cast<int>(q) & 3) {
        case 0: s = sn; c = cs; break;
        case 1: s = cs; c = -sn; break;
        case 2: s = -sn; c = -cs; break;
        default: s = -cs; c = sn; break;
    }
}

double cos_deg(double deg) {
    double s, c;
    sincos_turns(deg / 360.0, s, c);
    return c;
}

uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

uint64_t Rng::next() {
    state += 0x9e3779b97f4a7c15ULL;
    return mix64(state);
}
double Rng::uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
int Rng::range(int lo, int hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1));
}

// ---------------------------------------------------------------- transforms

Xf Xf::translate(double x, double y, double z) {
    Xf f;
    f.t[0] = x;
    f.t[1] = y;
    f.t[2] = z;
    return f;
}

Xf Xf::rotate_y(double turns) {
    double s, c;
    sincos_turns(turns, s, c);
    Xf f;
    f.r[0][0] = c;  f.r[0][2] = s;
    f.r[2][0] = -s; f.r[2][2] = c;
    return f;
}

Xf Xf::rotate_x(double turns) {
    double s, c;
    sincos_turns(turns, s, c);
    Xf f;
    f.r[1][1] = c; f.r[1][2] = -s;
    f.r[2][1] = s; f.r[2][2] = c;
    return f;
}

Xf Xf::basis(const std::array<double, 3>& ex, const std::array<double, 3>& ey, const std::array<double, 3>& ez) {
    Xf f;
    for (int i = 0; i < 3; ++i) {
        f.r[i][0] = ex[static_cast<size_t>(i)];
        f.r[i][1] = ey[static_cast<size_t>(i)];
        f.r[i][2] = ez[static_cast<size_t>(i)];
    }
    return f;
}

Xf Xf::operator*(const Xf& o) const {
    Xf f;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) f.r[i][j] = r[i][0] * o.r[0][j] + r[i][1] * o.r[1][j] + r[i][2] * o.r[2][j];
        f.t[i] = r[i][0] * o.t[0] + r[i][1] * o.t[1] + r[i][2] * o.t[2] + t[i];
    }
    return f;
}

Vec3 Xf::apply(const Vec3& p) const {
    Vec3 q;
    for (int i = 0; i < 3; ++i)
        q[static_cast<size_t>(i)] = static_cast<float>(r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2] + t[i]);
    return q;
}

std::array<float, 16> Xf::matrix() const {
    std::array<float, 16> m{};
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) m[static_cast<size_t>(col * 4 + row)] = static_cast<float>(r[row][col]);
    for (int row = 0; row < 3; ++row) m[static_cast<size_t>(12 + row)] = static_cast<float>(t[row]);
    m[15] = 1;
    return m;
}

Mesh transformed(const Mesh& m, const Xf& xf) {
    Mesh out;
    out.triangles = m.triangles;
    out.positions.reserve(m.positions.size());
    for (const Vec3& p : m.positions) out.positions.push_back(xf.apply(p));
    return out;
}

double signed_volume(const Mesh& m) {
    double v = 0;
    for (size_t i = 0; i + 2 < m.triangles.size(); i += 3) {
        const Vec3& a = m.positions[m.triangles[i]];
        const Vec3& b = m.positions[m.triangles[i + 1]];
        const Vec3& c = m.positions[m.triangles[i + 2]];
        double cx = double(b[1]) * c[2] - double(b[2]) * c[1];
        double cy = double(b[2]) * c[0] - double(b[0]) * c[2];
        double cz = double(b[0]) * c[1] - double(b[1]) * c[0];
        v += a[0] * cx + a[1] * cy + a[2] * cz;
    }
    return v / 6.0;
}

// ---------------------------------------------------------------- loops

Loop circle(double r, int n, double phase_turns) {
    Loop l(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
        double s, c;
        sincos_turns(phase_turns + double(k) / n, s, c);
        l[static_cast<size_t>(k)] = {r * s, r * c};
    }
    return l;
}

Loop hexagon(double across_flats, int n) {
    // Corners at theta = j/6 turn; each side gets n/6 samples starting at its first corner,
    // placed where the sample direction meets the side.
    const double rc = across_flats / std::sqrt(3.0);  // corner radius
    P2 corner[6];
    for (int j = 0; j < 6; ++j) {
        double s, c;
        sincos_turns(j / 6.0, s, c);
        corner[j] = {rc * s, rc * c};
    }
    const int per = std::max(1, n / 6);
    Loop l;
    l.reserve(static_cast<size_t>(per * 6));
    for (int j = 0; j < 6; ++j) {
        const P2 a = corner[j], b = corner[(j + 1) % 6];
        l.push_back(a);
        for (int i = 1; i < per; ++i) {
            double s, c;
            sincos_turns(double(j * per + i) / (6 * per), s, c);
            // P = a + lambda (b - a), parallel to d = (s, c): cross(d, P) = 0.
            const double ex = b.x - a.x, ez = b.z - a.z;
            const double lambda = -(s * a.z - c * a.x) / (s * ez - c * ex);
            l.push_back({a.x + lambda * ex, a.z + lambda * ez});
        }
    }
    return l;
}

Loop clamp_radius(const Loop& l, double rmax) {
    Loop o = l;
    for (P2& p : o) {
        double r = std::sqrt(p.x * p.x + p.z * p.z);
        if (r > rmax) {
            p.x *= rmax / r;
            p.z *= rmax / r;
        }
    }
    return o;
}

Loop at_radius(const Loop& l, double radius) {
    Loop o = l;
    for (P2& p : o) {
        double r = std::sqrt(p.x * p.x + p.z * p.z);
        p.x *= radius / r;
        p.z *= radius / r;
    }
    return o;
}

// ---------------------------------------------------------------- lofts

Mesh loft(const std::vector<Level>& levels, bool closed) {
    Mesh m;
    std::vector<uint32_t> start;
    size_t n = 0;
    for (const Level& lv : levels) {
        start.push_back(static_cast<uint32_t>(m.positions.size()));
        if (lv.loop.size() > 1) n = lv.loop.size();
        for (const P2& p : lv.loop)
            m.positions.push_back({static_cast<float>(p.x), static_cast<float>(lv.y), static_cast<float>(p.z)});
    }
    const size_t L = levels.size();
    const size_t bands = closed ? L : L - 1;
    for (size_t l = 0; l < bands; ++l) {
        const size_t la = l, lb = (l + 1) % L;
        const bool pa = levels[la].loop.size() == 1, pb = levels[lb].loop.size() == 1;
        const uint32_t A = start[la], B = start[lb];
        if (pa && pb) continue;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t i0 = static_cast<uint32_t>(i), i1 = static_cast<uint32_t>((i + 1) % n);
            if (pa) {
                m.triangles.insert(m.triangles.end(), {A, B + i1, B + i0});
            } else if (pb) {
                m.triangles.insert(m.triangles.end(), {A + i0, A + i1, B});
            } else {
                m.triangles.insert(m.triangles.end(), {A + i0, A + i1, B + i1});
                m.triangles.insert(m.triangles.end(), {A + i0, B + i1, B + i0});
            }
        }
    }
    return m;
}

Mesh lathe(const std::vector<std::array<double, 2>>& profile, int n) {
    std::vector<Level> levels;
    for (const auto& p : profile) {
        if (p[0] <= 0)
            levels.push_back({p[1], Loop{{0.0, 0.0}}});
        else
            levels.push_back({p[1], circle(p[0], n)});
    }
    return loft(levels, false);
}

Mesh revolve_ring(const std::vector<std::array<double, 2>>& profile, int n) {
    std::vector<Level> levels;
    for (const auto& p : profile) levels.push_back({p[1], circle(p[0], n)});
    return loft(levels, true);
}

Mesh ring_extrude(const Loop& outer, const Loop& inner, double y0, double y1) {
    if (inner.empty()) {
        const Loop pole{{0.0, 0.0}};
        return loft({{y0, pole}, {y0, outer}, {y1, outer}, {y1, pole}}, false);
    }
    return loft({{y0, outer}, {y1, outer}, {y1, inner}, {y0, inner}}, true);
}

// ---------------------------------------------------------------- polygons

std::vector<uint32_t> ear_clip(const std::vector<std::array<double, 2>>& poly) {
    const size_t n = poly.size();
    std::vector<uint32_t> out;
    if (n < 3) return out;
    double area2 = 0;
    for (size_t i = 0; i < n; ++i) {
        const auto& a = poly[i];
        const auto& b = poly[(i + 1) % n];
        area2 += a[0] * b[1] - b[0] * a[1];
    }
    std::vector<uint32_t> idx(n);
    for (size_t i = 0; i < n; ++i) idx[i] = static_cast<uint32_t>(area2 >= 0 ? i : n - 1 - i);
    auto cross = [&](uint32_t a, uint32_t b, uint32_t c) {
        return (poly[b][0] - poly[a][0]) * (poly[c][1] - poly[a][1]) -
               (poly[b][1] - poly[a][1]) * (poly[c][0] - poly[a][0]);
    };
    size_t guard = 0;
    while (idx.size() > 3 && guard < n * n * 2) {
        ++guard;
        bool clipped = false;
        const size_t m = idx.size();
        for (size_t i = 0; i < m; ++i) {
            const uint32_t a = idx[(i + m - 1) % m], b = idx[i], c = idx[(i + 1) % m];
            if (cross(a, b, c) <= 0) continue;  // reflex or degenerate
            bool inside = false;
            for (uint32_t p : idx) {
                if (p == a || p == b || p == c) continue;
                if (cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0) {
                    inside = true;
                    break;
                }
            }
            if (inside) continue;
            out.insert(out.end(), {a, b, c});
            idx.erase(idx.begin() + static_cast<std::ptrdiff_t>(i));
            clipped = true;
            break;
        }
        if (!clipped) break;  // not simple: give up (never for our polygons)
    }
    if (idx.size() == 3) out.insert(out.end(), {idx[0], idx[1], idx[2]});
    return out;
}

Mesh extrude_xy(const std::vector<std::array<double, 2>>& poly, double z0, double z1) {
    Mesh m;
    const uint32_t n = static_cast<uint32_t>(poly.size());
    for (const auto& p : poly) m.positions.push_back({float(p[0]), float(p[1]), float(z0)});
    for (const auto& p : poly) m.positions.push_back({float(p[0]), float(p[1]), float(z1)});
    std::vector<uint32_t> cap = ear_clip(poly);  // counter-clockwise in XY: faces +Z
    for (size_t i = 0; i < cap.size(); i += 3) {
        m.triangles.insert(m.triangles.end(), {cap[i] + n, cap[i + 1] + n, cap[i + 2] + n});
        m.triangles.insert(m.triangles.end(), {cap[i], cap[i + 2], cap[i + 1]});
    }
    // Walls: outward for a counter-clockwise polygon; flipped below when it was clockwise.
    double area2 = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const auto& a = poly[i];
        const auto& b = poly[(i + 1) % n];
        area2 += a[0] * b[1] - b[0] * a[1];
    }
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t a = i, b = (i + 1) % n;
        if (area2 < 0) std::swap(a, b);
        m.triangles.insert(m.triangles.end(), {a, b, b + n});
        m.triangles.insert(m.triangles.end(), {a, b + n, a + n});
    }
    if (z1 < z0) {  // extruded backwards: everything is inside out
        for (size_t i = 0; i < m.triangles.size(); i += 3) std::swap(m.triangles[i + 1], m.triangles[i + 2]);
    }
    return m;
}

Mesh box(const Vec3& lo, const Vec3& hi) {
    return extrude_xy({{lo[0], lo[1]}, {hi[0], lo[1]}, {hi[0], hi[1]}, {lo[0], hi[1]}}, lo[2], hi[2]);
}

}  // namespace seatmark::workloads::prim
