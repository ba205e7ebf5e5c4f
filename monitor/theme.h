#pragma once
// The monitor's look: a dark theme, fonts (DejaVu Sans when installed, ImGui's
// built-in font otherwise) and the colours every view shares.
#include <imgui.h>

namespace seatmark::monitor {

struct Fonts {
    ImFont* body = nullptr;   // 15 px
    ImFont* small = nullptr;  // 13 px
    ImFont* big = nullptr;    // 22 px bold
};

// Sets the style and loads the fonts into the current ImGui context (before the backend builds its atlas).
Fonts apply_theme();

namespace colour {
constexpr ImU32 rgba(int r, int g, int b, int a = 255) {
    return ImU32(r) | (ImU32(g) << 8) | (ImU32(b) << 16) | (ImU32(a) << 24);
}
constexpr ImU32 background = rgba(20, 23, 29);
constexpr ImU32 panel = rgba(27, 31, 39);
constexpr ImU32 border = rgba(255, 255, 255, 22);
constexpr ImU32 grid = rgba(255, 255, 255, 20);
constexpr ImU32 axis_text = rgba(150, 157, 170);
constexpr ImU32 text_dim = rgba(140, 146, 158);
constexpr ImU32 text = rgba(225, 228, 235);
constexpr ImU32 accent = rgba(94, 177, 255);

constexpr ImU32 pass = rgba(52, 168, 83);
constexpr ImU32 fail = rgba(224, 72, 60);
constexpr ImU32 pending = rgba(92, 99, 112);
constexpr ImU32 warn = rgba(240, 160, 40);

// Session tiles.
constexpr ImU32 tile_ok = rgba(38, 140, 72);
constexpr ImU32 tile_sla = rgba(214, 120, 30);
constexpr ImU32 tile_starting = rgba(52, 92, 150);
constexpr ImU32 tile_stopping = rgba(84, 88, 98);
constexpr ImU32 tile_ended = rgba(48, 52, 60);
constexpr ImU32 tile_failed = rgba(170, 32, 44);

// Series.
constexpr ImU32 p95_worst = rgba(255, 112, 86);
constexpr ImU32 p95_median = rgba(255, 196, 84);
constexpr ImU32 fps_median = rgba(94, 177, 255);
constexpr ImU32 fps_min = rgba(160, 130, 255);
constexpr ImU32 cpu = rgba(72, 206, 160);
constexpr ImU32 mem = rgba(205, 140, 255);
constexpr ImU32 gpu = rgba(255, 206, 64);
constexpr ImU32 interval = rgba(110, 190, 255);
constexpr ImU32 sla_line = rgba(255, 90, 90, 200);
}  // namespace colour

}  // namespace seatmark::monitor
