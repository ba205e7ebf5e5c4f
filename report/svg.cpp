#include "report/svg.h"

#include <cmath>
#include <cstdio>

#include "report/format.h"

namespace seatmark::report::svg {

std::vector<double> nice_ticks(double lo, double hi, int target) {
    std::vector<double> t;
    if (!std::isfinite(lo) || !std::isfinite(hi)) return t;
    if (hi <= lo) hi = lo + 1;
    double raw = (hi - lo) / std::max(1, target);
    double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw) {
            step = m * mag;
            break;
        }
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
        t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return t;
}

double nice_top(double v, int target) {
    if (!(v > 0)) return 1;
    auto t = nice_ticks(0, v, target);
    double top = t.empty() ? v : t.back();
    if (top < v) top += t.size() > 1 ? t[1] - t[0] : v;
    return top;
}

std::string tick_label(double v) {
    char b[32];
    if (std::abs(v - std::round(v)) < 1e-9) std::snprintf(b, sizeof b, "%.0f", v);
    else if (std::abs(v * 10 - std::round(v * 10)) < 1e-9) std::snprintf(b, sizeof b, "%.1f", v);
    else std::snprintf(b, sizeof b, "%.2f", v);
    return b;
}

std::string n(double v) {
    char b[32];
    double r = std::round(v * 10) / 10;
    if (r == std::floor(r)) std::snprintf(b, sizeof b, "%.0f", r);
    else std::snprintf(b, sizeof b, "%.1f", r);
    return b;
}

namespace {
std::string attr(std::string_view name, std::string_view v) {
    return v.empty() ? std::string() : " " + std::string(name) + "=\"" + html_escape(v) + "\"";
}
std::string tip_of(std::string_view tip) { return tip.empty() ? std::string() : "<title>" + html_escape(tip) + "</title>"; }
}  // namespace

Writer::Writer(double width, double height, std::string_view label) {
    out_ = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + n(width) + " " + n(height) + "\" width=\"" +
           n(width) + "\" height=\"" + n(height) + "\" role=\"img\"" + attr("aria-label", label) + ">";
}

void Writer::rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra,
                  std::string_view tip) {
    out_ += "<rect x=\"" + n(x) + "\" y=\"" + n(y) + "\" width=\"" + n(std::max(0.0, w)) + "\" height=\"" +
            n(std::max(0.0, h)) + "\"" + attr("fill", fill) + (extra.empty() ? "" : " " + std::string(extra));
    out_ += tip.empty() ? "/>" : ">" + tip_of(tip) + "</rect>";
}

void Writer::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
                  std::string_view dash) {
    out_ += "<line x1=\"" + n(x1) + "\" y1=\"" + n(y1) + "\" x2=\"" + n(x2) + "\" y2=\"" + n(y2) + "\"" +
            attr("stroke", stroke) + " stroke-width=\"" + n(width) + "\"" + attr("stroke-dasharray", dash) + "/>";
}

void Writer::polyline(const std::vector<std::pair<double, double>>& pts, std::string_view stroke, double width,
                      std::string_view dash) {
    if (pts.empty()) return;
    out_ += "<polyline fill=\"none\"" + attr("stroke", stroke) + " stroke-width=\"" + n(width) +
            "\" stroke-linejoin=\"round\"" + attr("stroke-dasharray", dash) + " points=\"";
    for (size_t i = 0; i < pts.size(); ++i) out_ += (i ? " " : "") + n(pts[i].first) + "," + n(pts[i].second);
    out_ += "\"/>";
}

void Writer::circle(double cx, double cy, double r, std::string_view fill, std::string_view stroke, std::string_view tip) {
    out_ += "<circle cx=\"" + n(cx) + "\" cy=\"" + n(cy) + "\" r=\"" + n(r) + "\"" + attr("fill", fill) +
            attr("stroke", stroke) + (stroke.empty() ? "" : " stroke-width=\"1.5\"");
    out_ += tip.empty() ? "/>" : ">" + tip_of(tip) + "</circle>";
}

void Writer::cross(double cx, double cy, double r, std::string_view stroke, double width, std::string_view tip) {
    out_ += "<path d=\"M" + n(cx - r) + " " + n(cy - r) + "L" + n(cx + r) + " " + n(cy + r) + "M" + n(cx - r) + " " +
            n(cy + r) + "L" + n(cx + r) + " " + n(cy - r) + "\"" + attr("stroke", stroke) + " stroke-width=\"" +
            n(width) + "\" stroke-linecap=\"round\"";
    out_ += tip.empty() ? "/>" : ">" + tip_of(tip) + "</path>";
}

void Writer::triangle(double cx, double cy, double r, std::string_view fill, std::string_view stroke,
                      std::string_view tip) {
    out_ += "<path d=\"M" + n(cx) + " " + n(cy - r) + "L" + n(cx + r) + " " + n(cy + r * 0.85) + "L" + n(cx - r) + " " +
            n(cy + r * 0.85) + "Z\"" + attr("fill", fill) + attr("stroke", stroke);
    out_ += tip.empty() ? "/>" : ">" + tip_of(tip) + "</path>";
}

void Writer::text(double x, double y, std::string_view s, std::string_view anchor, double size, std::string_view fill,
                  std::string_view extra) {
    out_ += "<text x=\"" + n(x) + "\" y=\"" + n(y) + "\"" + attr("text-anchor", anchor) + " font-size=\"" + n(size) +
            "\"" + attr("fill", fill) + (extra.empty() ? "" : " " + std::string(extra)) + ">" + html_escape(s) +
            "</text>";
}

std::string Writer::finish() { return std::move(out_) + "</svg>"; }

}  // namespace seatmark::report::svg
