#pragma once
// A small SVG writer for the report's charts: shapes with optional hover titles (<title>,
// no JavaScript), linear scales and "nice" axis ticks. Coordinates are user units.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seatmark::report::svg {

// Maps [d0, d1] onto [r0, r1].
struct Scale {
    double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
    double operator()(double v) const { return d1 == d0 ? r0 : r0 + (v - d0) * (r1 - r0) / (d1 - d0); }
};

// About `target` round tick values covering [lo, hi] (1, 2, 2.5, 5 x 10^k steps).
std::vector<double> nice_ticks(double lo, double hi, int target = 5);
// A tick label: no trailing zeros ("0.5", "20", "1200").
std::string tick_label(double v);
// The top of an axis that starts at 0 and shows `v`: the next nice tick at or above it.
double nice_top(double v, int target = 5);

std::string n(double v);  // a coordinate: at most 1 decimal

class Writer {
public:
    Writer(double width, double height, std::string_view label);
    void rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra = {},
              std::string_view tip = {});
    void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
              std::string_view dash = {});
    void polyline(const std::vector<std::pair<double, double>>& pts, std::string_view stroke, double width = 1.5,
                  std::string_view dash = {});
    void circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke = {},
                std::string_view tip = {});
    void cross(double cx, double cy, double r, std::string_view stroke, double width = 2, std::string_view tip = {});
    // An upward triangle centred on (cx, cy): the charts' mark for a value above the axis.
    void triangle(double cx, double cy, double r, std::string_view fill, std::string_view stroke = {},
                  std::string_view tip = {});
    void text(double x, double y, std::string_view s, std::string_view anchor = "start", double size = 12,
              std::string_view fill = "#333", std::string_view extra = {});
    void raw(std::string_view s) { out_ += s; }
    std::string finish();

private:
    std::string out_;
};

}  // namespace seatmark::report::svg
