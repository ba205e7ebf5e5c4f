#include "monitor/plot.h"

#include <algorithm>
#include <cstdio>

#include "monitor/theme.h"

namespace seatmark::monitor {

namespace {

constexpr int max_grid_lines = 200;

double nice_step(double span, int target_ticks) {
    if (span <= 0 || target_ticks <= 0) return 1;
    double raw = span / target_ticks;
    double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw) return m * mag;
    return 10 * mag;
}

std::string time_label(double s, double step) {
    char b[32];
    if (step >= 60 || s >= 600) {
        int t = int(std::lround(s));
        std::snprintf(b, sizeof b, "%d:%02d", t / 60, t % 60);
    } else if (step >= 1) {
        std::snprintf(b, sizeof b, "%.0fs", s);
    } else {
        std::snprintf(b, sizeof b, "%.1fs", s);
    }
    return b;
}

std::string value_label(double v) {
    char b[32];
    if (std::fabs(v) >= 1e9)
        std::snprintf(b, sizeof b, "%.1fG", v / 1e9);
    else if (std::fabs(v) >= 1e6)
        std::snprintf(b, sizeof b, "%.1fM", v / 1e6);
    else if (std::fabs(v) >= 1e4)
        std::snprintf(b, sizeof b, "%.0fk", v / 1e3);
    else if (v == std::floor(v))
        std::snprintf(b, sizeof b, "%.0f", v);
    else
        std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

}  // namespace

double nice_ceiling(double v, double floor) {
    if (!(v > floor)) v = floor;
    double mag = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 1.5, 2.0, 3.0, 5.0, 7.5, 10.0})
        if (m * mag >= v) return m * mag;
    return 10 * mag;
}

Plot::Plot(const char* id, const char* title, ImVec2 size, XRange& x, double y0, double y1, const char* y_unit)
    : x_(x), y0_(y0), y1_(y1 > y0 ? y1 : y0 + 1), unit_(y_unit), dl_(ImGui::GetWindowDrawList()) {
    outer0_ = ImGui::GetCursorScreenPos();
    if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
    outer1_ = ImVec2(outer0_.x + size.x, outer0_.y + size.y);
    ImGui::InvisibleButton(id, size);
    const float title_h = ImGui::GetFontSize() + 6;
    p0_ = ImVec2(outer0_.x + 44, outer0_.y + title_h);
    p1_ = ImVec2(outer1_.x - 8, outer1_.y - 18);
    if (p1_.x < p0_.x + 10) p1_.x = p0_.x + 10;
    if (p1_.y < p0_.y + 10) p1_.y = p0_.y + 10;

    // An outline, not a filled background: the clear colour shows through (fill rate is what a
    // software renderer spends most on).
    dl_->AddRect(outer0_, outer1_, colour::border, 6);
    dl_->AddText(ImVec2(outer0_.x + 8, outer0_.y + 3), colour::text, title);

    // Interaction: wheel zooms around the mouse, drag pans, double-click follows the data again.
    ImGuiIO& io = ImGui::GetIO();
    hovered_ = ImGui::IsItemHovered() && io.MousePos.x >= p0_.x && io.MousePos.x <= p1_.x;
    const double span = x_.x1 - x_.x0;
    if (hovered_) {
        mouse_x_ = x_.x0 + (io.MousePos.x - p0_.x) / (p1_.x - p0_.x) * span;
        if (io.MouseWheel != 0) {
            double f = io.MouseWheel > 0 ? 0.8 : 1.25;
            x_.x0 = mouse_x_ - (mouse_x_ - x_.x0) * f;
            x_.x1 = mouse_x_ + (x_.x1 - mouse_x_) * f;
            x_.follow = false;
        }
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) x_.follow = true;
    }
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2)) {
        double dx = -io.MouseDelta.x / (p1_.x - p0_.x) * span;
        x_.x0 += dx;
        x_.x1 += dx;
        x_.follow = false;
    }

    // Grid and y labels.
    dl_->PushClipRect(outer0_, outer1_, true);
    double ys = nice_step(y1_ - y0_, std::max(2, int((p1_.y - p0_.y) / 36)));
    // At most max_grid_lines each way: with far-off values y += ys can stop moving y.
    int lines = 0;
    for (double y = std::ceil(y0_ / ys) * ys; y <= y1_ + 1e-9 && lines < max_grid_lines; y += ys, ++lines) {
        ImVec2 a = px(x_.x0, y);
        dl_->AddLine(ImVec2(p0_.x, a.y), ImVec2(p1_.x, a.y), colour::grid);
        std::string l = value_label(y);
        ImVec2 ts = ImGui::CalcTextSize(l.c_str());
        dl_->AddText(ImVec2(p0_.x - ts.x - 6, a.y - ts.y * 0.5f), colour::axis_text, l.c_str());
    }
    double xs = nice_step(x_.x1 - x_.x0, std::max(2, int((p1_.x - p0_.x) / 90)));
    lines = 0;
    for (double x = std::ceil(x_.x0 / xs) * xs; x <= x_.x1 + 1e-9 && lines < max_grid_lines; x += xs, ++lines) {
        ImVec2 a = px(x, y0_);
        dl_->AddLine(ImVec2(a.x, p0_.y), ImVec2(a.x, p1_.y), colour::grid);
        std::string l = time_label(x, xs);
        ImVec2 ts = ImGui::CalcTextSize(l.c_str());
        dl_->AddText(ImVec2(a.x - ts.x * 0.5f, p1_.y + 2), colour::axis_text, l.c_str());
    }
    dl_->PopClipRect();
    dl_->PushClipRect(p0_, p1_, true);
}

ImVec2 Plot::px(double x, double y) const {
    float fx = p0_.x + float((x - x_.x0) / (x_.x1 - x_.x0)) * (p1_.x - p0_.x);
    float fy = p1_.y - float((y - y0_) / (y1_ - y0_)) * (p1_.y - p0_.y);
    // Keep far-off points finite for the rasteriser.
    fy = std::clamp(fy, p0_.y - 4000.0f, p1_.y + 4000.0f);
    fx = std::clamp(fx, p0_.x - 4000.0f, p1_.x + 4000.0f);
    return ImVec2(fx, fy);
}

size_t Plot::index_at(const double* xs, size_t n, double x) const {
    return size_t(std::lower_bound(xs, xs + n, x) - xs);
}

void Plot::stroke(std::vector<ImVec2>& pts, ImU32 col, float thickness) {
    thickness = std::max(1.0f, std::round(thickness));
    if (pts.size() == 1) dl_->AddCircleFilled(pts[0], thickness + 0.5f, col, 6);
    if (pts.size() >= 2) dl_->AddPolyline(pts.data(), int(pts.size()), col, 0, thickness);
    pts.clear();
}

void Plot::bands(const std::vector<StepBand>& bands) {
    int k = 0;
    for (const auto& b : bands) {
        ImVec2 a = px(b.t0_s, y1_), c = px(b.t1_s, y0_);
        if (c.x < p0_.x || a.x > p1_.x) {
            ++k;
            continue;
        }
        // Only the measured window is shaded: every layer over the plot costs fill rate on a
        // software renderer, and the separators and labels already tell the steps apart.
        if (!std::isnan(b.window_t0_s) && !std::isnan(b.window_t1_s)) {
            ImVec2 w0 = px(b.window_t0_s, y1_), w1 = px(b.window_t1_s, y0_);
            dl_->AddRectFilled(ImVec2(w0.x, p0_.y), ImVec2(w1.x, p1_.y), colour::rgba(94, 177, 255, 12));
        }
        ImU32 vc = b.verdict == 1 ? colour::pass : b.verdict == 0 ? colour::fail : colour::pending;
        dl_->AddRectFilled(ImVec2(a.x, p0_.y), ImVec2(c.x - 1, p0_.y + 3), vc);
        dl_->AddLine(ImVec2(a.x, p0_.y), ImVec2(a.x, p1_.y), colour::rgba(255, 255, 255, 28));
        char l[32];
        std::snprintf(l, sizeof l, b.sessions == 1 ? "%u session" : "%u sessions", b.sessions);
        if (ImGui::CalcTextSize(l).x + 6 > c.x - std::max(a.x, p0_.x)) std::snprintf(l, sizeof l, "%u", b.sessions);
        float lx = std::max(a.x, p0_.x);
        if (c.x - lx > 14) dl_->AddText(ImVec2(lx + 4, p0_.y + 4), colour::rgba(255, 255, 255, 100), l);
        ++k;
    }
}

void Plot::hline(double y, ImU32 col, const char* label) {
    if (y < y0_ || y > y1_ || std::isnan(y)) return;
    ImVec2 a = px(x_.x0, y);
    for (float x = p0_.x; x < p1_.x; x += 8) dl_->AddLine(ImVec2(x, a.y), ImVec2(std::min(x + 4, p1_.x), a.y), col, 1.2f);
    if (label) {
        ImVec2 ts = ImGui::CalcTextSize(label);
        dl_->AddText(ImVec2(p1_.x - ts.x - 4, a.y - ts.y - 1), col, label);
    }
}

void Plot::vline(double x, ImU32 col, const char* label) {
    if (x < x_.x0 || x > x_.x1) return;
    ImVec2 a = px(x, y0_);
    dl_->AddLine(ImVec2(a.x, p0_.y), ImVec2(a.x, p1_.y), col, 1.5f);
    if (label) dl_->AddText(ImVec2(a.x + 3, p0_.y + 14), col, label);
}

Plot::~Plot() {
    dl_->PopClipRect();
    // Legend, top right.
    float x = outer1_.x - 10;
    for (auto it = legend_.rbegin(); it != legend_.rend(); ++it) {
        ImVec2 ts = ImGui::CalcTextSize(it->first.c_str());
        x -= ts.x;
        dl_->AddText(ImVec2(x, outer0_.y + 3), colour::text_dim, it->first.c_str());
        x -= 14;
        dl_->AddRectFilled(ImVec2(x, outer0_.y + 8), ImVec2(x + 10, outer0_.y + 11), it->second, 1);
        x -= 12;
    }
    if (!hovered_) return;
    ImVec2 m = ImGui::GetIO().MousePos;
    dl_->AddLine(ImVec2(m.x, p0_.y), ImVec2(m.x, p1_.y), colour::rgba(255, 255, 255, 70));
    ImGui::BeginTooltip();
    ImGui::TextDisabled("t = %s", time_label(mouse_x_, 1).c_str());
    for (const auto& r : readout_) {
        ImGui::ColorButton(r.label.c_str(), ImGui::ColorConvertU32ToFloat4(r.col),
                           ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoBorder, ImVec2(10, 10));
        ImGui::SameLine();
        if (std::isnan(r.y))
            ImGui::Text("%s: -", r.label.c_str());
        else
            ImGui::Text("%s: %.2f %s", r.label.c_str(), r.y, unit_ ? unit_ : "");
    }
    ImGui::TextDisabled("wheel: zoom, drag: pan, double-click: follow");
    ImGui::EndTooltip();
}

}  // namespace seatmark::monitor
