#pragma once
// Time-series plots drawn with ImDrawList (Debian ships no ImPlot): axes with
// 1-2-5 ticks, step bands, reference lines, hover read-out, wheel zoom, drag pan,
// double-click to follow the data again. Lines with more points than pixels are
// drawn from per-pixel min/max buckets, so a single spike survives any zoom-out.
#include <imgui.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "monitor/monitor_data.h"

namespace seatmark::monitor {

// The visible time span of one or more linked plots.
struct XRange {
    double x0 = 0, x1 = 1;
    bool follow = true;  // fit the data each frame until the user zooms or pans
    void fit(double a, double b) {
        if (!follow) return;
        x0 = a;
        x1 = b > a ? b : a + 1;
    }
};

// Min/max buckets of a series over pixel columns: what a line of `pixels` columns
// must draw to show every extreme. Points with NaN values are skipped.
struct Bucket {
    float first, min, max, last;
    bool empty = true;
    bool gap_before = false;  // a NaN (a break in the series) came since the previous bucket's last value
};
template <class YAt>
std::vector<Bucket> bucketize(const double* xs, size_t n, YAt y_at, double x0, double x1, int pixels) {
    std::vector<Bucket> b(size_t(pixels > 0 ? pixels : 0));
    if (pixels <= 0 || x1 <= x0) return b;
    double scale = double(pixels) / (x1 - x0);
    bool gap = false;
    for (size_t i = 0; i < n; ++i) {
        if (xs[i] < x0 || xs[i] >= x1) continue;
        float y = static_cast<float>(y_at(i));
        if (std::isnan(y)) {
            gap = true;
            continue;
        }
        auto& k = b[std::min(size_t(pixels - 1), size_t((xs[i] - x0) * scale))];
        if (k.empty) {
            k = {y, y, y, y, false, gap};
        } else {
            k.min = std::min(k.min, y);
            k.max = std::max(k.max, y);
            k.last = y;
        }
        gap = false;
    }
    return b;
}

// A round upper bound for a y axis: 1, 2 or 5 x 10^k at or above v (and at least `floor`).
double nice_ceiling(double v, double floor = 1);

class Plot {
public:
    // Reserves `size` at the cursor. `x` is shared by linked plots. y spans [y0, y1].
    Plot(const char* id, const char* title, ImVec2 size, XRange& x, double y0, double y1, const char* y_unit);
    ~Plot();  // axes, legend, hover read-out and interaction

    void bands(const std::vector<StepBand>& bands);
    void hline(double y, ImU32 col, const char* label);
    void vline(double x, ImU32 col, const char* label = nullptr);

    // A line through (xs[i], y_at(i)); xs ascending. NaN values break the line.
    // `bucket_px`: width of one min/max bucket once there are more points than that allows.
    template <class YAt>
    void line(const char* label, ImU32 col, const double* xs, size_t n, YAt y_at, float thickness = 1.5f,
              int bucket_px = 1);

    bool hovered() const { return hovered_; }
    double mouse_x() const { return mouse_x_; }

private:
    ImVec2 px(double x, double y) const;
    // Thickness is rounded to whole pixels: ImGui then draws antialiased lines from a
    // texture with two vertices a point, which matters on a software renderer.
    void stroke(std::vector<ImVec2>& pts, ImU32 col, float thickness);
    size_t index_at(const double* xs, size_t n, double x) const;  // first i with xs[i] >= x

    XRange& x_;
    double y0_, y1_;
    const char* unit_;
    ImDrawList* dl_;
    ImVec2 outer0_, outer1_, p0_, p1_;
    bool hovered_ = false;
    double mouse_x_ = 0;
    struct Readout {
        std::string label;
        ImU32 col;
        double y;
    };
    std::vector<Readout> readout_;
    std::vector<std::pair<std::string, ImU32>> legend_;
};

template <class YAt>
void Plot::line(const char* label, ImU32 col, const double* xs, size_t n, YAt y_at, float thickness, int bucket_px) {
    legend_.push_back({label, col});
    if (n == 0) return;
    // Only what is on screen, plus one point either side so lines reach the edges.
    size_t i0 = index_at(xs, n, x_.x0);
    i0 = i0 > 0 ? i0 - 1 : 0;
    size_t i1 = i0;
    while (i1 < n && xs[i1] <= x_.x1) ++i1;
    i1 = std::min(n, i1 + 1);
    const int pixels = std::max(1, int(p1_.x - p0_.x) / std::max(1, bucket_px));
    std::vector<ImVec2> pts;
    if (i1 - i0 <= size_t(pixels) * 2) {
        for (size_t i = i0; i < i1; ++i) {
            double y = y_at(i);
            if (std::isnan(y)) {
                stroke(pts, col, thickness);
                continue;
            }
            pts.push_back(px(xs[i], y));
        }
        stroke(pts, col, thickness);
    } else {
        // More points than pixels: one bar per column from its min to its max, stretched to
        // the previous column's last value so the trace stays connected. Every spike stays,
        // and axis-aligned bars are the cheapest thing a software rasteriser can draw.
        auto b = bucketize(xs + i0, i1 - i0, [&](size_t k) { return y_at(i0 + k); }, x_.x0, x_.x1, pixels);
        const float w = (p1_.x - p0_.x) / float(pixels), t = std::max(1.0f, std::round(thickness));
        float prev = NAN;
        for (int c = 0; c < pixels; ++c) {
            const Bucket& k = b[size_t(c)];
            if (k.empty) {
                prev = NAN;
                continue;
            }
            float lo = k.min, hi = k.max;
            // Joined to the previous column only where the series has no break between them.
            if (!std::isnan(prev) && !k.gap_before) lo = std::min(lo, prev), hi = std::max(hi, prev);
            prev = k.last;
            float x = p0_.x + float(c) * w;
            float ytop = px(x_.x0, hi).y - t * 0.5f, ybot = px(x_.x0, lo).y + t * 0.5f;
            dl_->AddRectFilled(ImVec2(x, ytop), ImVec2(x + std::max(w, 1.0f), ybot), col);
        }
    }
    if (hovered_) {
        // The point nearest to the mouse.
        size_t j = index_at(xs, n, mouse_x_);
        if (j >= n) j = n - 1;
        if (j > 0 && std::fabs(xs[j - 1] - mouse_x_) < std::fabs(xs[j] - mouse_x_)) --j;
        readout_.push_back({label, col, y_at(j)});
    }
}

}  // namespace seatmark::monitor
