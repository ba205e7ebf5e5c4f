#pragma once
// Closed solid primitives for the procedural CAD assembly (workloads/assembly.cpp), and the
// small deterministic math they need.
//
// Determinism: everything here uses only IEEE basic operations (+ - * / sqrt floor) in a
// fixed order; trigonometry is our own (sincos_turns), never libm, whose last bits differ
// between library versions. So meshes and hashes are bit-identical on every x86-64 machine.
// (A build that lets the compiler fuse a*b+c into FMA, e.g. -march=native, may change last bits.)
//
// Conventions: solids are built in a local frame with +Y as their axis (revolve axis,
// extrusion direction). Loops lie in the XZ plane, ordered by increasing polar angle theta
// where (x, z) = r (sin theta, cos theta): counter-clockwise seen from +Y. Units: millimetres.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "workloads/mesh.h"

namespace seatmark::workloads::prim {

inline constexpr double pi = 3.14159265358979323846;

// sin and cos of `turns` full turns (1 turn = 360 deg). Exact at multiples of 1/4 turn.
void sincos_turns(double turns, double& s, double& c);
double cos_deg(double deg);

// splitmix64: tiny, fast, and the same sequence everywhere (std:: distributions are not).
struct Rng {
    uint64_t state;
    explicit Rng(uint64_t seed) : state(seed) {}
    uint64_t next();
    double uniform();                          // [0, 1)
    double uniform(double lo, double hi);      // [lo, hi)
    int range(int lo, int hi);                 // [lo, hi], inclusive
    bool chance(double p) { return uniform() < p; }
    template <class T>
    const T& pick(const std::vector<T>& v) { return v[static_cast<std::size_t>(range(0, int(v.size()) - 1))]; }
};
uint64_t mix64(uint64_t x);  // splitmix64 finaliser, for deriving sub-seeds

// Rigid transform (rotation + translation), double precision; points map as R p + t.
struct Xf {
    double r[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double t[3] = {0, 0, 0};
    static Xf translate(double x, double y, double z);
    static Xf rotate_y(double turns);  // about +Y, right-handed
    static Xf rotate_x(double turns);
    // Columns: where local x, y, z go (must be orthonormal and right-handed).
    static Xf basis(const std::array<double, 3>& ex, const std::array<double, 3>& ey,
                    const std::array<double, 3>& ez);
    Xf operator*(const Xf& o) const;  // this after o
    Vec3 apply(const Vec3& p) const;
    std::array<float, 16> matrix() const;  // column-major 4x4 (GLSL mat4)
};

Mesh transformed(const Mesh& m, const Xf& xf);  // keeps orientation (rigid transforms only)
double signed_volume(const Mesh& m);            // > 0 for closed solids facing outwards

struct P2 {
    double x, z;
};
using Loop = std::vector<P2>;

Loop circle(double r, int n, double phase_turns = 0);
// Regular hexagon with the given width across flats, sampled at n directions (n multiple
// of 6 so the corners are samples; corners at theta = 0, 60, ... deg).
Loop hexagon(double across_flats, int n);
Loop clamp_radius(const Loop& l, double rmax);  // min(|p|, rmax) along each direction
Loop at_radius(const Loop& l, double r);        // the same directions, at radius r

// One ring of a loft: a loop at height y, or a single pole vertex (loop of size 1).
struct Level {
    double y;
    Loop loop;
};

// Joins consecutive levels (equal point counts, or a pole) with bands of quads/fans. The
// (radius, y) profile must run counter-clockwise (like a lathe profile from the bottom pole up
// the outside to the top pole); closed=true also joins the last level to the first (rings).
// Result: closed and welded by construction.
Mesh loft(const std::vector<Level>& levels, bool closed);

// Lathe of an (r, y) profile from the axis to the axis (r == 0 at both ends become poles).
Mesh lathe(const std::vector<std::array<double, 2>>& profile, int n);
// Revolve of a closed counter-clockwise (r, y) profile that does not touch the axis (washers, hubs).
Mesh revolve_ring(const std::vector<std::array<double, 2>>& profile, int n);
// Extrusion from y0 to y1 of the region between outer and inner (same directions), or of
// the whole star-shaped outer loop when inner is empty (fan caps).
Mesh ring_extrude(const Loop& outer, const Loop& inner, double y0, double y1);

Mesh box(const Vec3& lo, const Vec3& hi);

// Simple polygon (any orientation) in the XY plane, extruded along Z from z0 to z1;
// caps by ear clipping.
Mesh extrude_xy(const std::vector<std::array<double, 2>>& polygon, double z0, double z1);
// Ear clipping of a simple polygon, counter-clockwise result (indices into polygon).
std::vector<uint32_t> ear_clip(const std::vector<std::array<double, 2>>& polygon);

// Plate of cols x rows square cells (pitch), x in [0, cols*pitch], z in [0, rows*pitch], top
// at y = 0, bottom at y = -thickness. hole[r * cols + c] != 0 puts a round hole of radius
// hole_r in the cell's centre. n (a multiple of 8, so the cell corners are samples) is the
// number of samples around each cell; neighbouring cells share their side samples exactly,
// and weld() turns the cells into one closed solid.
Mesh plate_with_holes(int cols, int rows, double pitch, double thickness,
                      const std::vector<uint8_t>& hole, double hole_r, int n);

// Spur gear outline: `teeth` teeth of the given module, samples_per_tooth in {4, 8, 11, 15}
// detail levels (0..3); tooth 0 centred on theta = 0 (+Z).
Loop gear_outline(int teeth, double module, int detail);
int gear_samples_per_tooth(int detail);

// Pillow block housing outline: upper half a circle of radius a around the origin, lower
// half a rectangle 2a wide reaching down to z = -depth; its corners are samples.
Loop pillow_outline(double a, double depth, int n);

// Hex bolt, head bottom at y = 0 (head up to y = head_h), shank down to y = -length.
// hex_n: samples around the head (multiple of 6; 6 = plain prism without chamfer).
Mesh hex_bolt(double d, double across_flats, double head_h, double length, int hex_n, int shank_n);
// Hex nut from y = 0 to y = height, bore radius bore_r; n multiple of 6, chamfered when n >= 12.
Mesh hex_nut(double across_flats, double height, double bore_r, int n, bool chamfer);
Mesh washer(double inner_r, double outer_r, double thickness, int n);

}  // namespace seatmark::workloads::prim
