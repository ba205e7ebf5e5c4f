#pragma once
// Where the monitor draws: a window (GLFW + OpenGL 3.3 core, needs an X display),
// or an offscreen framebuffer for --screenshot and the benchmark (a hidden GLFW
// window under $DISPLAY, else a surfaceless EGL context: Mesa renders without X).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace seatmark::monitor {

class GlSurface {
public:
    // Throws ExitError(bad_input) when there is no display to open a window on.
    static std::unique_ptr<GlSurface> window(int width, int height, const std::string& title);
    // Throws std::runtime_error when neither X nor EGL gives an OpenGL 3.3 context.
    static std::unique_ptr<GlSurface> offscreen(int width, int height);
    ~GlSurface();
    GlSurface(const GlSurface&) = delete;
    GlSurface& operator=(const GlSurface&) = delete;

    GLFWwindow* glfw_window() const { return window_; }  // null when offscreen
    bool is_offscreen() const { return fbo_ != 0; }
    int width() const;
    int height() const;
    std::string renderer() const;  // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
    const std::string& context_kind() const { return kind_; }  // "glfw window", "glfw hidden", "egl surfaceless"

    void begin_frame(float r, float g, float b);  // binds the target and clears it
    void end_frame();                              // presents (window) or finishes (offscreen)
    std::vector<uint8_t> read_rgba() const;        // RGBA8, top row first

private:
    GlSurface() = default;
    void make_fbo(int w, int h);

    GLFWwindow* window_ = nullptr;
    void* egl_display_ = nullptr;
    void* egl_context_ = nullptr;
    unsigned fbo_ = 0, color_ = 0;
    int w_ = 0, h_ = 0;
    std::string kind_;
};

}  // namespace seatmark::monitor
