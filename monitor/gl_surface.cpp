#include "monitor/gl_surface.h"

#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <GLFW/glfw3.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/errors.h"
#include "common/exit_codes.h"

namespace seatmark::monitor {

namespace {

bool glfw_ready() {
    static bool ok = [] {
        glfwSetErrorCallback([](int, const char*) {});  // failures are reported by what returns null
        return glfwInit() == GLFW_TRUE;
    }();
    return ok;
}

bool have_display() {
    const char* d = std::getenv("DISPLAY");
    return d && *d;
}

GLFWwindow* make_glfw(int w, int h, const std::string& title, bool visible) {
    if (!have_display() || !glfw_ready()) return nullptr;
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    GLFWwindow* win = glfwCreateWindow(w, h, title.c_str(), nullptr, nullptr);
    if (win) glfwMakeContextCurrent(win);
    return win;
}

}  // namespace

std::unique_ptr<GlSurface> GlSurface::window(int width, int height, const std::string& title) {
    if (!have_display())
        throw ExitError(exit_code::bad_input,
                        "seatmark monitor needs a display to open its window (DISPLAY is not set); "
                        "use --screenshot out.png to render without one");
    std::unique_ptr<GlSurface> s(new GlSurface);
    s->window_ = make_glfw(width, height, title, true);
    if (!s->window_)
        throw ExitError(exit_code::bad_input, "cannot open an OpenGL 3.3 window on display " +
                                                  std::string(std::getenv("DISPLAY")));
    glfwSwapInterval(1);
    s->kind_ = "glfw window";
    return s;
}

std::unique_ptr<GlSurface> GlSurface::offscreen(int width, int height) {
    std::unique_ptr<GlSurface> s(new GlSurface);
    s->window_ = make_glfw(64, 64, "seatmark monitor", false);
    if (s->window_) {
        s->kind_ = "glfw hidden";
    } else {
        auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
        EGLDisplay dpy = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr)
                                     : EGL_NO_DISPLAY;
        EGLint major = 0, minor = 0;
        if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor))
            throw std::runtime_error("no OpenGL for an offscreen render: no X display and no surfaceless EGL (Mesa)");
        eglBindAPI(EGL_OPENGL_API);
        const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLConfig cfg = nullptr;
        EGLint n = 0;
        eglChooseConfig(dpy, cfg_attr, &cfg, 1, &n);
        const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                   EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
        EGLContext ctx = eglCreateContext(dpy, n > 0 ? cfg : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ctx_attr);
        if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
            if (ctx != EGL_NO_CONTEXT) eglDestroyContext(dpy, ctx);
            eglTerminate(dpy);
            throw std::runtime_error("surfaceless EGL gave no OpenGL 3.3 core context");
        }
        s->egl_display_ = dpy;
        s->egl_context_ = ctx;
        s->kind_ = "egl surfaceless";
    }
    s->make_fbo(width, height);
    return s;
}

void GlSurface::make_fbo(int w, int h) {
    w_ = w;
    h_ = h;
    glGenRenderbuffers(1, &color_);
    glBindRenderbuffer(GL_RENDERBUFFER, color_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glGenFramebuffers(1, &fbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        throw std::runtime_error("offscreen framebuffer incomplete");
}

GlSurface::~GlSurface() {
    if (fbo_) {
        glDeleteFramebuffers(1, &fbo_);
        glDeleteRenderbuffers(1, &color_);
    }
    if (window_) glfwDestroyWindow(window_);
    if (egl_display_) {
        eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(egl_display_, egl_context_);
        eglTerminate(egl_display_);
    }
}

int GlSurface::width() const {
    if (fbo_ || !window_) return w_;
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    return w;
}

int GlSurface::height() const {
    if (fbo_ || !window_) return h_;
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    return h;
}

std::string GlSurface::renderer() const {
    const auto* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return r ? r : "?";
}

void GlSurface::begin_frame(float r, float g, float b) {
    if (fbo_) glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glViewport(0, 0, width(), height());
    glClearColor(r, g, b, 1);
    glClear(GL_COLOR_BUFFER_BIT);
}

void GlSurface::end_frame() {
    if (fbo_)
        glFinish();
    else if (window_)
        glfwSwapBuffers(window_);
}

std::vector<uint8_t> GlSurface::read_rgba() const {
    int w = width(), h = height();
    std::vector<uint8_t> px(size_t(w) * size_t(h) * 4), out(px.size());
    if (fbo_) glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    size_t row = size_t(w) * 4;
    for (int y = 0; y < h; ++y) std::memcpy(out.data() + size_t(y) * row, px.data() + size_t(h - 1 - y) * row, row);
    for (size_t i = 3; i < out.size(); i += 4) out[i] = 255;  // opaque, whatever the blending left in alpha
    return out;
}

}  // namespace seatmark::monitor
