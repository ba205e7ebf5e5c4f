#include "workloads/assembly_stations.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

namespace seatmark::workloads::stations {

using namespace prim;

// ---------------------------------------------------------------- catalogue

constexpr uint32_t rgb(uint32_t r, uint32_t g, uint32_t b) { return r | g << 8 | b << 16 | 0xff000000u; }

// A CAD-like palette (R in the low byte).
constexpr uint32_t steel_grey = rgb(140, 146, 153);
constexpr uint32_t light_steel = rgb(196, 200, 205);
constexpr uint32_t blue_anodised = rgb(38, 98, 178);
constexpr uint32_t orange = rgb(232, 118, 26);
constexpr uint32_t green = rgb(46, 150, 72);
constexpr uint32_t yellow = rgb(240, 192, 36);
constexpr uint32_t red = rgb(192, 48, 40);
constexpr uint32_t dark_fastener = rgb(58, 60, 64);
constexpr uint32_t black_oxide = rgb(34, 35, 38);
constexpr uint32_t zinc = rgb(178, 182, 188);
constexpr uint32_t brass = rgb(204, 164, 64);
constexpr uint32_t gunmetal = rgb(88, 94, 104);

// ISO metric hex bolts, nuts and washers (rounded), with the plate hole pitch used for them.
struct Fastener {
    double d, af, k, m;     // thread diameter, across flats, head height, nut height
    double wi, wo, wt;      // washer inner/outer radius, thickness
    double hole_r, pitch;   // clearance hole radius, plate cell pitch
};
constexpr Fastener fasteners[4] = {
    {6, 10, 4.0, 5.0, 3.2, 6.0, 1.6, 3.3, 30},
    {8, 13, 5.3, 6.5, 4.3, 8.0, 1.6, 4.5, 40},
    {10, 16, 6.4, 8.0, 5.3, 10.0, 2.0, 5.5, 50},
    {12, 18, 7.5, 10.0, 6.4, 12.0, 2.5, 6.6, 60},
};


Detail detail_for(uint64_t budget) {
    Detail d;
    const double q = std::sqrt(std::sqrt(double(budget) / 1e4));  // 16 segments at 10k, ~90 at 10M
    d.S = std::clamp(static_cast<int>(std::floor(16.0 * q / 8.0 + 0.5)) * 8, 16, 96);
    d.Sf = std::clamp(d.S / 2 / 8 * 8, 16, 48);
    d.hex_n = std::clamp(static_cast<int>(std::floor(d.S * 0.5 / 6.0 + 0.5)) * 6, 18, 48);
    d.head_n = d.S <= 16 ? 6 : d.hex_n;
    d.gear_detail = d.S <= 16 ? 0 : d.S <= 32 ? 1 : d.S <= 56 ? 2 : 3;
    d.size_class = budget < 40000 ? 0 : budget < 400000 ? 1 : 2;
    return d;
}

double ceil_to(double x, double step) { return std::ceil(x / step - 1e-9) * step; }

// ---------------------------------------------------------------- mesh library


std::string key_of(const char* name, std::initializer_list<double> values) {
    std::string k(name);
    for (double v : values) {
        char b[sizeof v];
        std::memcpy(b, &v, sizeof v);
        k.append(b, sizeof v);
    }
    return k;
}

// ---------------------------------------------------------------- part meshes

Mesh gear_mesh(int teeth, double m, double b, double bore, double rh, double bh, int detail, int S) {
    const Loop outline = gear_outline(teeth, m, detail);
    const double rf = m * (teeth * 0.5 - 1.25);
    const double rim = rf - 1.5 * m;
    Mesh hub = revolve_ring({{bore, -bh / 2}, {rh, -bh / 2}, {rh, bh / 2}, {bore, bh / 2}}, S);
    if (rim > rh * 1.5 + 4) {
        // Rim, thin web and hub: three closed solids that overlap slightly (no coplanar faces).
        Mesh g = ring_extrude(outline, at_radius(outline, rim), -b / 2, b / 2);
        const double bw = b * 0.35, wi = rh - 0.5, wo = rim + 0.5 * m;
        append(g, revolve_ring({{wi, -bw / 2}, {wo, -bw / 2}, {wo, bw / 2}, {wi, bw / 2}}, std::max(S, 32)));
        append(g, hub);
        return g;
    }
    Mesh g = ring_extrude(outline, at_radius(outline, bore), -b / 2, b / 2);
    append(g, hub);
    return g;
}

// ---------------------------------------------------------------- stations


uint32_t bolt_mesh(Library& lib, const Detail& det, int fi, double length) {
    const Fastener& q = fasteners[fi];
    return lib.get(key_of("bolt", {double(fi), length, double(det.head_n), double(det.Sf)}),
                   [&] { return hex_bolt(q.d, q.af, q.k, length, det.head_n, det.Sf); });
}
uint32_t washer_mesh(Library& lib, const Detail& det, int fi) {
    const Fastener& q = fasteners[fi];
    return lib.get(key_of("washer", {double(fi), double(det.Sf)}), [&] { return washer(q.wi, q.wo, q.wt, det.Sf); });
}
uint32_t nut_mesh(Library& lib, const Detail& det, int fi) {
    const Fastener& q = fasteners[fi];
    return lib.get(key_of("nut", {double(fi), double(det.hex_n)}),
                   [&] { return hex_nut(q.af, q.m, q.d / 2 + 0.1, det.hex_n, true); });
}

// Bolt, washers and nut through every plate hole (plate of thickness T, top at y = 0), in a
// shuffled order: the budget fill takes a prefix of them.
void add_hole_sets(Station& st, Library& lib, const Detail& det, Rng& rng, int fs, double T, int cols,
                   const std::vector<uint8_t>& hole, uint32_t bolt_colour, uint32_t washer_colour) {
    const Fastener& F = fasteners[fs];
    const double p = F.pitch;
    const uint32_t bm = bolt_mesh(lib, det, fs, ceil_to(T + 2 * F.wt + F.m + 0.5 * F.d, 5));
    const uint32_t wm = washer_mesh(lib, det, fs), nm = nut_mesh(lib, det, fs);
    std::vector<int> cells;
    for (size_t i = 0; i < hole.size(); ++i)
        if (hole[i]) cells.push_back(int(i));
    for (size_t i = cells.size(); i > 1; --i) std::swap(cells[i - 1], cells[size_t(rng.range(0, int(i) - 1))]);
    for (int cell : cells) {
        const double cx = (cell % cols + 0.5) * p, cz = (cell / cols + 0.5) * p;
        std::vector<PartDraft> set = {
            {wm, Xf::translate(cx, 0, cz), washer_colour, PartKind::washer},
            {bm, Xf::translate(cx, F.wt, cz) * Xf::rotate_y(rng.uniform()), bolt_colour, PartKind::bolt},
            {wm, Xf::translate(cx, -T - F.wt, cz), washer_colour, PartKind::washer},
            {nm, Xf::translate(cx, -T - F.wt - F.m, cz) * Xf::rotate_y(rng.uniform()), bolt_colour, PartKind::nut},
        };
        uint64_t n = 0;
        for (const PartDraft& d : set) n += lib.tris[d.mesh];
        st.sets.push_back(std::move(set));
        st.set_tris.push_back(n);
    }
}

const std::vector<uint32_t> plate_colours = {steel_grey, blue_anodised, green, light_steel, gunmetal};
const std::vector<uint32_t> bolt_colours = {dark_fastener, black_oxide, zinc};

// A fixture plate: a small bolted plate, used to fill what is left of the budget when a
// whole station no longer fits. Sized down until its plate fits into `room`.
Station build_fixture(Library& lib, const Detail& det, uint64_t seed, uint64_t index, uint64_t room) {
    Rng rng(mix64(seed ^ mix64(index * 2 + 0x7f4a7c15)));
    Station st;
    const int fs = det.size_class == 0 ? rng.range(0, 1) : rng.range(0, 3);
    const Fastener& F = fasteners[fs];
    const double T = rng.pick(std::vector<double>{10.0, 12.0, 15.0});
    const uint32_t plate_colour = rng.pick(plate_colours);
    const uint32_t bolt_colour = rng.pick(bolt_colours);
    const uint32_t washer_colour = bolt_colour == zinc ? light_steel : zinc;
    int cols = rng.range(2, 6), rows = rng.range(1, 3);
    const bool checker = rng.chance(0.4);
    for (;;) {
        std::vector<uint8_t> hole(size_t(cols * rows));
        for (int i = 0; i < cols * rows; ++i) hole[size_t(i)] = !checker || (i % cols + i / cols) % 2 == 0;
        std::string key = key_of("plate", {double(cols), double(rows), F.pitch, T, F.hole_r, double(det.S)});
        key.append(hole.begin(), hole.end());
        const uint32_t mesh =
            lib.get(key, [&] { return plate_with_holes(cols, rows, F.pitch, T, hole, F.hole_r, det.S); });
        if (lib.tris[mesh] <= room || (cols == 1 && rows == 1)) {
            st.core.push_back({mesh, Xf{}, plate_colour, PartKind::plate});
            st.core_tris = lib.tris[mesh];
            st.width = cols * F.pitch;
            st.depth = rows * F.pitch;
            add_hole_sets(st, lib, det, rng, fs, T, cols, hole, bolt_colour, washer_colour);
            return st;
        }
        if (cols >= rows && cols > 1) --cols; else --rows;
    }
}

// Local y -> world +X (shaft axis), local z -> world +Y (up), local x -> world +Z.
const Xf along_x = Xf::basis({0, 0, 1}, {1, 0, 0}, {0, 1, 0});
// Local y -> world -X, local z -> world +Y.
const Xf along_minus_x = Xf::basis({0, 0, -1}, {-1, 0, 0}, {0, 1, 0});

// Station `index` of the assembly for `seed`: random design (fastener size, one or two shafts,
// gear pairs, pillow blocks or brackets with flange bearings, hole pattern, colours). The
// minimal form (one shaft, one gear, M6) is what is tried when the full one exceeds the budget.
Station build_station(Library& lib, const Detail& det, uint64_t seed, uint64_t index, bool minimal) {
    Rng rng(mix64(seed ^ mix64(index * 2 + (minimal ? 1 : 0) + 0x51ed270b)));
    const int sc = det.size_class;
    const int S = det.S;
    Station st;
    auto put = [&](std::vector<PartDraft>& into, uint32_t mesh, const Xf& xf, uint32_t rgba, PartKind kind) {
        into.push_back({mesh, xf, rgba, kind});
        return lib.tris[mesh];
    };
    auto core = [&](uint32_t mesh, const Xf& xf, uint32_t rgba, PartKind kind) {
        st.core_tris += put(st.core, mesh, xf, rgba, kind);
    };

    // --- choices
    const int fs = minimal ? 0 : sc == 0 ? rng.range(0, 1) : rng.range(0, 3);
    const Fastener& F = fasteners[fs];
    const double p = F.pitch;
    std::vector<double> thicknesses;
    for (double t : {10.0, 12.0, 15.0, 20.0})
        if (t >= F.d) thicknesses.push_back(t);
    const double T = rng.pick(thicknesses);
    const uint32_t plate_colour = rng.pick(plate_colours);
    uint32_t support_colour = rng.pick(std::vector<uint32_t>{orange, yellow, blue_anodised, red, steel_grey});
    if (support_colour == plate_colour) support_colour = orange;
    const uint32_t bolt_colour = rng.pick(bolt_colours);
    const uint32_t washer_colour = bolt_colour == zinc ? light_steel : zinc;
    const uint32_t shaft_colour = rng.chance(0.7) ? light_steel : steel_grey;
    const bool two = !minimal && rng.chance(sc == 0 ? 0.35 : sc == 1 ? 0.65 : 0.8);
    const int ngear = minimal ? 1 : rng.range(1, sc == 2 ? 3 : 2);
    const double m = sc == 0 ? rng.pick(std::vector<double>{1.5, 2.0}) : rng.pick(std::vector<double>{1.5, 2.0, 2.5, 3.0});
    const double rj = sc == 0   ? rng.pick(std::vector<double>{5, 6, 8})
                      : sc == 1 ? rng.pick(std::vector<double>{6, 8, 10, 12.5})
                                : rng.pick(std::vector<double>{8, 10, 12.5, 15});
    const double rm = rj + rng.pick(std::vector<double>{1.5, 2, 3});
    const double rh = rm * 1.4 + 2;  // gear hub radius
    const int zmin = static_cast<int>(std::ceil(2 * (rh + 1.5 * m) / m + 2.5));
    const int zspan = sc == 0 ? 8 : sc == 1 ? 20 : 36;
    const bool pillow = rng.chance(0.55);
    const double rb = rj + 0.3;  // support bore
    const double f = std::max(10.0, std::round(T * 0.8));  // support foot thickness

    // --- support geometry (support-local frame: origin on the plate under the shaft axis)
    double a_h, c = 0, t = 0, u = 0, cb = 0, ext_out, ext_in, half_z;
    const double tf = 6, lh = 10;                          // flange bearing: flange thickness, hub length
    const double r_in = rj + 0.15, r_hub = rb + 4, r_fl = r_hub + 14;
    if (pillow) {
        a_h = rb * 1.6 + 6;
        c = std::ceil(a_h + F.wo + 3);
        t = std::round(0.8 * c);
        ext_out = ext_in = c / 2;
        half_z = 1.5 * c;
    } else {
        a_h = r_fl + 2;
        u = std::max(8.0, std::round(rj * 0.8));
        cb = std::ceil(std::max(a_h, u + 2 * F.wo + 4));
        ext_out = u / 2 + tf + lh;
        ext_in = 2 * cb - u / 2;
        half_z = cb;
    }

    // --- gears
    std::vector<int> za(static_cast<size_t>(ngear)), zb(static_cast<size_t>(ngear));
    int zsum = 0;
    if (two) {
        const int zsum_min = std::max(2 * zmin, static_cast<int>(std::ceil(2 * (a_h + rj + 4) / m)));
        zsum = zsum_min + rng.range(0, zspan);
        for (int i = 0; i < ngear; ++i) {
            za[size_t(i)] = rng.range(zmin, zsum - zmin);
            zb[size_t(i)] = zsum - za[size_t(i)];
        }
    } else {
        for (int i = 0; i < ngear; ++i) za[size_t(i)] = rng.range(zmin, zmin + zspan);
    }
    const double b = m * rng.range(6, 10);
    const double bh = b * 1.4;
    double ra_max = 0;
    for (int i = 0; i < ngear; ++i) {
        ra_max = std::max(ra_max, m * (za[size_t(i)] * 0.5 + 1));
        if (two) ra_max = std::max(ra_max, m * (zb[size_t(i)] * 0.5 + 1));
    }
    const double a = two ? m * zsum * 0.5 : 0;  // centre distance
    double H = ceil_to(ra_max + F.k + F.wt + 10, 5);
    H = std::max(H, ceil_to(a_h + f + 4, 5));
    const bool stagger = two && a < 2 * half_z + 4;

    // --- axial layout along x
    const double margin = p * 0.5, overhang = 8, cw = 5;
    double x1 = margin + overhang + ext_out, x1b = x1;
    double inner = x1 + ext_in;
    if (stagger) {
        x1b = inner + 6 + ext_out;
        inner = x1b + ext_in;
    }
    std::vector<double> gear_x;
    double g = inner + 10;
    for (int i = 0; i < ngear; ++i) {
        gear_x.push_back(g + cw + bh / 2);
        g += cw + bh + cw + 8;
    }
    const double gend = g - 8 + 10;
    double x2b = gend + ext_in, x2 = x2b;
    if (stagger) x2 = x2b + ext_in + 6 + ext_out;
    const double w_need = x2 + ext_out + overhang + margin;
    const int cols = std::max(3, static_cast<int>(std::ceil(w_need / p)));
    const double dx = (cols * p - w_need) / 2;
    x1 += dx; x1b += dx; x2 += dx; x2b += dx;
    for (double& x : gear_x) x += dx;

    const double zr = std::max(half_z, ra_max) + 4;
    const double d_need = a + 2 * zr + 2 * (p * 0.25);
    const int rows = std::max(3, static_cast<int>(std::ceil(d_need / p)));
    const double D = rows * p;
    const double zs1 = D / 2 - a / 2, zs2 = zs1 + a;
    st.width = cols * p;
    st.depth = D;

    // --- reserved cells (under supports and angle brackets): no holes there
    std::vector<uint8_t> reserved(static_cast<size_t>(cols * rows), 0);
    auto reserve = [&](double xa, double xb, double za_, double zb_) {
        const double e = F.wo + 1;
        for (int r = 0; r < rows; ++r)
            for (int cc = 0; cc < cols; ++cc)
                if (cc * p < xb + e && (cc + 1) * p > xa - e && r * p < zb_ + e && (r + 1) * p > za_ - e)
                    reserved[size_t(r * cols + cc)] = 1;
    };
    struct SupportAt {
        double x, z;
        bool right;
    };
    std::vector<SupportAt> supports = {{x1, zs1, false}, {x2, zs1, true}};
    if (two) {
        supports.push_back({x1b, zs2, false});
        supports.push_back({x2b, zs2, true});
    }
    for (const SupportAt& s : supports) {
        const double lo = s.right ? s.x - ext_in : s.x - ext_out, hi = s.right ? s.x + ext_out : s.x + ext_in;
        reserve(lo, hi, s.z - half_z, s.z + half_z);
    }
    const bool angles = !minimal && sc >= 1 && rng.chance(0.6) && !reserved[0] &&
                        !reserved[size_t(rows * cols - 1)];
    if (angles) {
        reserved[0] = 1;
        reserved[size_t(rows * cols - 1)] = 1;
    }

    // --- holes
    const int pattern = rng.range(0, 3);
    std::vector<uint8_t> hole(static_cast<size_t>(cols * rows), 0);
    for (int r = 0; r < rows; ++r) {
        for (int cc = 0; cc < cols; ++cc) {
            const bool border = r == 0 || r == rows - 1 || cc == 0 || cc == cols - 1;
            bool h = false;
            switch (pattern) {
                case 0: h = border; break;
                case 1: h = border && (r + cc) % 2 == 0; break;
                case 2: h = r % 2 == 0 && cc % 2 == 0; break;
                default: h = r == 0 || r == rows - 1; break;
            }
            if (h && !reserved[size_t(r * cols + cc)]) hole[size_t(r * cols + cc)] = 1;
        }
    }
    if (std::find(hole.begin(), hole.end(), 1) == hole.end()) {  // the pattern fell under the supports
        for (size_t i = 0; i < hole.size(); ++i) hole[i] = reserved[i] ? 0 : 1;
    }

    // --- base plate
    {
        std::string key = key_of("plate", {double(cols), double(rows), p, T, F.hole_r, double(S)});
        key.append(hole.begin(), hole.end());
        const uint32_t mesh = lib.get(key, [&] { return plate_with_holes(cols, rows, p, T, hole, F.hole_r, S); });
        core(mesh, Xf{}, plate_colour, PartKind::plate);
    }

    // --- fastener meshes
    const uint32_t washer_m = washer_mesh(lib, det, fs);
    // A bolt with its washer standing on a surface at `top` (support-local or station-local).
    auto bolt_on = [&](const Xf& frame, double x, double top, double z, double grip) {
        const uint32_t bm = bolt_mesh(lib, det, fs, ceil_to(grip + F.wt, 5));
        core(washer_m, frame * Xf::translate(x, top, z), washer_colour, PartKind::washer);
        core(bm, frame * Xf::translate(x, top + F.wt, z) * Xf::rotate_y(rng.uniform()), bolt_colour, PartKind::bolt);
    };

    // --- supports
    uint32_t support_mesh;  // the far-end support is the same mesh turned half a turn about Y
    if (pillow) {
        auto build = [&] {
            Mesh foot = plate_with_holes(1, 3, c, f, {1, 0, 1}, F.hole_r, S);
            Mesh m_ = transformed(foot, Xf::translate(-c / 2, f, -1.5 * c));
            const Loop outline = pillow_outline(a_h, H - f, S);
            Mesh housing = ring_extrude(outline, at_radius(outline, rb), -t / 2, t / 2);
            append(m_, transformed(housing, Xf::translate(0, H, 0) * along_x));
            return m_;
        };
        support_mesh = lib.get(key_of("pillow", {a_h, c, t, f, H, rb, F.hole_r, double(S)}), build);
    } else {
        auto build = [&] {
            const Loop outline = pillow_outline(a_h, H, S);
            Mesh upright = ring_extrude(outline, at_radius(outline, rb), -u / 2, u / 2);
            Mesh m_ = transformed(upright, Xf::translate(0, H, 0) * along_x);
            Mesh foot = plate_with_holes(2, 2, cb, f, {0, 1, 0, 1}, F.hole_r, S);
            append(m_, transformed(foot, Xf::translate(-u / 2, f, -cb)));
            const double gl = std::max(8.0, std::min(2 * cb - u - 4, H - rb - f - 8));  // gusset leg
            const double x0 = u / 2 - 0.5, ch = std::min(4.0, gl * 0.2);
            append(m_, extrude_xy({{x0, f - 0.5}, {x0 + gl, f - 0.5}, {x0 + gl, f + ch}, {x0 + ch, f + gl},
                                   {x0, f + gl}},
                                  -u / 2, u / 2));
            return m_;
        };
        support_mesh = lib.get(key_of("bracket", {a_h, u, cb, f, H, rb, F.hole_r, double(S)}), build);
    }
    const uint32_t bearing_m = pillow ? 0 : lib.get(key_of("flange", {r_in, r_hub, r_fl, tf, lh, double(S)}), [&] {
        return revolve_ring({{r_in, 0}, {r_fl, 0}, {r_fl, tf}, {r_hub, tf}, {r_hub, tf + lh}, {r_in, tf + lh}}, S);
    });
    const uint32_t bearing_colour = rng.pick(std::vector<uint32_t>{gunmetal, dark_fastener, blue_anodised});
    for (const SupportAt& s : supports) {
        const Xf frame = Xf::translate(s.x, 0, s.z) * Xf::rotate_y(s.right ? 0.5 : 0);
        core(support_mesh, frame, support_colour, pillow ? PartKind::block : PartKind::bracket);
        if (pillow) {
            for (double zz : {-c, c}) bolt_on(frame, 0, f, zz, f + T * 0.5);
        } else {
            for (double zz : {-cb / 2, cb / 2}) bolt_on(frame, -u / 2 + 1.5 * cb, f, zz, f + T * 0.5);
            const Xf bf = frame * Xf::translate(-u / 2, H, 0) * along_minus_x;
            core(bearing_m, bf, bearing_colour, PartKind::block);
            const int screws = sc == 0 ? 2 : 4;
            const double bc = r_hub + 7;
            for (int k = 0; k < screws; ++k) {
                double sn, cs;
                sincos_turns(0.125 + double(k) / screws, sn, cs);
                const uint32_t sm = bolt_mesh(lib, det, 0, 12);
                core(sm, bf * Xf::translate(bc * sn, tf, bc * cs) * Xf::rotate_y(rng.uniform()), bolt_colour,
                     PartKind::bolt);
            }
        }
    }

    // --- shafts and gears
    const double rc = rm + 3;  // collars beside each gear
    auto shaft = [&](double xa, double xb, double zs) {
        const double len = xb - xa, ch = std::min(1.5, rj * 0.1);
        std::vector<std::array<double, 2>> prof = {{0, 0}, {rj - ch, 0}, {rj, ch}};
        const double s0 = gear_x.front() - bh / 2 - cw - 6 - xa;
        const double s1 = gear_x.back() + bh / 2 + cw + 6 - xa;
        prof.push_back({rj, s0});
        prof.push_back({rm, s0});
        for (double gx : gear_x) {
            const double gl = gx - bh / 2 - xa, gr = gx + bh / 2 - xa;
            for (auto q : {std::array<double, 2>{rm, gl - cw}, {rc, gl - cw}, {rc, gl}, {rm, gl}, {rm, gr}, {rc, gr},
                           {rc, gr + cw}, {rm, gr + cw}})
                prof.push_back(q);
        }
        prof.push_back({rm, s1});
        prof.push_back({rj, s1});
        prof.push_back({rj, len - ch});
        prof.push_back({rj - ch, len});
        prof.push_back({0, len});
        std::string key = "shaft";
        for (const auto& q : prof) key += key_of("", {q[0], q[1]});
        const uint32_t sm = lib.get(key + key_of("", {double(S)}), [&] { return lathe(prof, S); });
        core(sm, Xf::translate(xa, H, zs) * along_x, shaft_colour, PartKind::shaft);
    };
    shaft(x1 - ext_out - overhang, x2 + ext_out + overhang, zs1);
    if (two) shaft(x1b - ext_out - overhang, x2b + ext_out + overhang, zs2);

    const std::vector<uint32_t> gear_colours = {brass, steel_grey, orange, green, blue_anodised, gunmetal};
    auto gear = [&](int z, double x, double zs, double phase, uint32_t colour) {
        const uint32_t gm = lib.get(key_of("gear", {double(z), m, b, rm, rh, bh, double(det.gear_detail), double(S)}),
                                    [&] { return gear_mesh(z, m, b, rm + 0.05, rh, bh, det.gear_detail, S); });
        core(gm, Xf::translate(x, H, zs) * along_x * Xf::rotate_y(phase), colour, PartKind::gear);
    };
    for (int i = 0; i < ngear; ++i) {
        const uint32_t colour = rng.pick(gear_colours);
        const double alpha = rng.uniform();
        const int z1 = za[size_t(i)];
        // Tooth 0 of gear A faces +Z (towards shaft 2); gear B shows a gap there, so they mesh.
        gear(z1, gear_x[size_t(i)], zs1, 0.25 + alpha / z1, colour);
        if (two) {
            const int z2 = zb[size_t(i)];
            uint32_t colour2 = rng.pick(gear_colours);
            gear(z2, gear_x[size_t(i)], zs2, 0.75 + 0.5 / z2 - alpha / z2, colour2);
        }
    }

    // --- angle brackets in two opposite corners, bolted down
    if (angles) {
        const double ta = std::clamp(F.d * 0.6, 4.0, 8.0), la = p - 6, wa = p * 0.6, fr = ta * 0.8;
        const double ha = std::max(ta + fr + 4, std::min(p * 0.7, H - rm - 6));
        const uint32_t am = lib.get(key_of("angle", {ta, la, wa, ha, fr}), [&] {
            std::vector<std::array<double, 2>> poly = {{0, 0}, {la, 0}, {la, ta}};
            for (int k = 0; k <= 4; ++k) {  // inner fillet, centre (ta + fr, ta + fr), from 270 to 180 deg
                double sn, cs;
                sincos_turns(0.75 - k / 16.0, sn, cs);
                poly.push_back({ta + fr + fr * cs, ta + fr + fr * sn});
            }
            poly.push_back({ta, ha});
            poly.push_back({0, ha});
            return extrude_xy(poly, -wa / 2, wa / 2);
        });
        const uint32_t colour = rng.pick(std::vector<uint32_t>{yellow, orange, red, blue_anodised});
        for (int k = 0; k < 2; ++k) {
            const Xf frame = k == 0 ? Xf::translate(3, 0, p / 2)
                                    : Xf::translate(cols * p - 3, 0, D - p / 2) * Xf::rotate_y(0.5);
            core(am, frame, colour, PartKind::bracket);
            bolt_on(frame, (ta + fr + la) / 2, ta, 0, ta + T * 0.5);
        }
    }

    // --- fastener sets for the plate holes, in a shuffled order
    add_hole_sets(st, lib, det, rng, fs, T, cols, hole, bolt_colour, washer_colour);
    return st;
}

}  // namespace seatmark::workloads::stations
