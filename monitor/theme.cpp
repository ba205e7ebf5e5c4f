#include "monitor/theme.h"

#include <filesystem>

namespace seatmark::monitor {

Fonts apply_theme() {
    ImGuiIO& io = ImGui::GetIO();
    Fonts f;
    const char* regular = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    const char* bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
    std::error_code ec;
    if (std::filesystem::exists(regular, ec)) {
        f.body = io.Fonts->AddFontFromFileTTF(regular, 15.0f);
        f.small = io.Fonts->AddFontFromFileTTF(regular, 13.0f);
        f.big = io.Fonts->AddFontFromFileTTF(std::filesystem::exists(bold, ec) ? bold : regular, 22.0f);
    }
    if (!f.body) {
        ImFontConfig c;
        c.SizePixels = 13.0f;
        f.body = f.small = io.Fonts->AddFontDefault(&c);
        c.SizePixels = 20.0f;
        f.big = io.Fonts->AddFontDefault(&c);
    }
    ImGui::StyleColorsDark();
    ImGuiStyle& s = ImGui::GetStyle();
    s.WindowRounding = 0;
    s.ChildRounding = 6;
    s.FrameRounding = 4;
    s.GrabRounding = 4;
    s.PopupRounding = 6;
    s.WindowPadding = ImVec2(10, 8);
    s.FramePadding = ImVec2(8, 4);
    s.ItemSpacing = ImVec2(8, 6);
    s.WindowBorderSize = 0;
    s.ChildBorderSize = 1;
    s.ScrollbarSize = 10;
    ImVec4* c = s.Colors;
    // The main window's background is the surface's clear colour: on a software renderer
    // every full-screen layer costs milliseconds, so nothing is drawn twice.
    c[ImGuiCol_WindowBg] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);  // panels are outlined, not filled (see WindowBg)
    c[ImGuiCol_Border] = ImGui::ColorConvertU32ToFloat4(colour::border);
    c[ImGuiCol_PopupBg] = ImVec4(0.10f, 0.11f, 0.14f, 0.97f);
    c[ImGuiCol_Text] = ImGui::ColorConvertU32ToFloat4(colour::text);
    c[ImGuiCol_TextDisabled] = ImGui::ColorConvertU32ToFloat4(colour::text_dim);
    c[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.18f, 0.22f, 1);
    c[ImGuiCol_FrameBgHovered] = ImVec4(0.20f, 0.23f, 0.28f, 1);
    c[ImGuiCol_SliderGrab] = ImGui::ColorConvertU32ToFloat4(colour::accent);
    c[ImGuiCol_SliderGrabActive] = ImVec4(0.55f, 0.78f, 1, 1);
    c[ImGuiCol_Button] = ImVec4(0.18f, 0.21f, 0.27f, 1);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.24f, 0.29f, 0.37f, 1);
    c[ImGuiCol_PlotHistogram] = ImGui::ColorConvertU32ToFloat4(colour::accent);
    c[ImGuiCol_Separator] = ImVec4(1, 1, 1, 0.08f);
    c[ImGuiCol_TableRowBgAlt] = ImVec4(1, 1, 1, 0.025f);
    c[ImGuiCol_TableBorderLight] = ImVec4(1, 1, 1, 0.05f);
    c[ImGuiCol_HeaderHovered] = ImVec4(1, 1, 1, 0.06f);
    return f;
}

}  // namespace seatmark::monitor
