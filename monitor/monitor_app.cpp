#include "monitor/monitor_app.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "image/png.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"
#include "monitor/db_source.h"
#include "monitor/live_source.h"
#include "monitor/monitor_ui.h"

namespace seatmark::monitor {

std::unique_ptr<DataSource> open_source(const std::string& target, const std::string& token) {
    std::error_code ec;
    bool is_url = target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0;
    if (!target.empty() && !is_url &&
        (std::filesystem::is_regular_file(target, ec) || std::filesystem::path(target).extension() == ".db"))
        return std::make_unique<DbSource>(target);  // throws InputError for a missing or foreign file
    LiveSourceOptions lo;
    lo.url = target;
    lo.token = token;
    return std::make_unique<LiveApiSource>(lo);
}

ImGuiRuntime::ImGuiRuntime(GlSurface& surface) : surface_(surface) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the monitor writes no files of its own
    io.LogFilename = nullptr;
    fonts_ = apply_theme();
    if (surface_.glfw_window() && !surface_.is_offscreen()) ImGui_ImplGlfw_InitForOpenGL(surface_.glfw_window(), true);
    ImGui_ImplOpenGL3_Init("#version 330");
}

ImGuiRuntime::~ImGuiRuntime() {
    ImGui_ImplOpenGL3_Shutdown();
    if (surface_.glfw_window() && !surface_.is_offscreen()) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
}

void ImGuiRuntime::new_frame(float dt_s) {
    ImGui_ImplOpenGL3_NewFrame();
    if (surface_.glfw_window() && !surface_.is_offscreen()) {
        ImGui_ImplGlfw_NewFrame();
    } else {
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(float(surface_.width()), float(surface_.height()));
        io.DisplayFramebufferScale = ImVec2(1, 1);
        io.DeltaTime = dt_s > 0 ? dt_s : 1.0f / 60;
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    }
    ImGui::NewFrame();
}

void ImGuiRuntime::end_frame() { ImGui::Render(); }

void ImGuiRuntime::draw() {
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

namespace {

void draw_once(ImGuiRuntime& rt, GlSurface& surface, UiState& ui, DataSource& src, float dt) {
    auto snap = src.snapshot();
    rt.new_frame(dt);
    draw_monitor(ui, *snap, src);
    rt.end_frame();
    ImVec4 bg = ImGui::ColorConvertU32ToFloat4(colour::background);
    surface.begin_frame(bg.x, bg.y, bg.z);
    rt.draw();
    surface.end_frame();
}

}  // namespace

int run_monitor(const MonitorOptions& o) {
    // The PNG is checked before the source is watched: never over the .db it shows (noted as an input).
    if (!o.screenshot.empty()) check_output_path(o.screenshot, "--screenshot", {o.target});
    auto src = open_source(o.target, o.token);
    using clock = std::chrono::steady_clock;
    if (!o.screenshot.empty()) {
        auto surface = GlSurface::offscreen(o.width, o.height);
        ImGuiRuntime rt(*surface);
        UiState ui;
        ui.fonts = rt.fonts();
        auto start = clock::now();
        // Run as a window would (the live source keeps polling), then a few frames more to settle the layout.
        int frames = 0;
        while (clock::now() - start < std::chrono::duration<double>(o.after_s) || frames < 3) {
            draw_once(rt, *surface, ui, *src, 1.0f / 30);
            ++frames;
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
        draw_once(rt, *surface, ui, *src, 1.0f / 30);
        auto px = surface->read_rgba();
        image::write_png(o.screenshot, uint32_t(surface->width()), uint32_t(surface->height()), px);
        auto snap = src->snapshot();
        std::fprintf(stderr, "seatmark monitor: wrote %s (%dx%d, %s, %s); %zu sessions, source %s\n",
                     o.screenshot.c_str(), surface->width(), surface->height(), surface->context_kind().c_str(),
                     surface->renderer().c_str(), snap->state.sessions.size(), snap->source.c_str());
        return exit_code::ok;
    }
    auto surface = GlSurface::window(o.width, o.height, "seatmark monitor");
    ImGuiRuntime rt(*surface);
    UiState ui;
    ui.fonts = rt.fonts();
    auto last = clock::now();
    while (!glfwWindowShouldClose(surface->glfw_window())) {
        // Wake at least 10 times a second for new data, at once for input.
        glfwWaitEventsTimeout(0.1);
        auto now = clock::now();
        float dt = std::chrono::duration<float>(now - last).count();
        last = now;
        draw_once(rt, *surface, ui, *src, dt);
    }
    return exit_code::ok;
}

}  // namespace seatmark::monitor
