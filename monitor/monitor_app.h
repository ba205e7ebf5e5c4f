#pragma once
// `seatmark monitor`: opens the source (live API URL or .db), then either shows a
// window until it is closed, or renders offscreen for a while and writes a PNG.
#include <memory>
#include <string>

#include "monitor/data_source.h"
#include "monitor/gl_surface.h"
#include "monitor/theme.h"

namespace seatmark::monitor {

struct MonitorOptions {
    std::string target;       // http://HOST:PORT, a .db file, or "" (the live API on this host)
    std::string token;        // bearer token for the live API
    std::string screenshot;   // write this PNG and exit instead of opening a window
    double after_s = 2;       // how long to run before the screenshot
    int width = 1280, height = 800;
};

// A .db file (it exists, or ends in .db) or a live API URL. Throws InputError.
std::unique_ptr<DataSource> open_source(const std::string& target, const std::string& token);

// Dear ImGui on a GlSurface: context, fonts, OpenGL3 renderer (and GLFW input for a window).
class ImGuiRuntime {
public:
    explicit ImGuiRuntime(GlSurface& surface);
    ~ImGuiRuntime();
    ImGuiRuntime(const ImGuiRuntime&) = delete;
    ImGuiRuntime& operator=(const ImGuiRuntime&) = delete;
    const Fonts& fonts() const { return fonts_; }
    void new_frame(float dt_s);  // offscreen: display size from the surface, no input
    void end_frame();            // ImGui::Render(): the frame's draw lists are complete
    void draw();                 // draws them into the surface's current target

private:
    GlSurface& surface_;
    Fonts fonts_;
};

int run_monitor(const MonitorOptions& o);

}  // namespace seatmark::monitor
