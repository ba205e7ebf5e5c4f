#include "client/glfw_api.h"
#include "client/vk_check.h"
#include "client/window.h"
#include "common/errors.h"

namespace seatmark::client {

namespace {
GLFWwindow* win(void* p) { return static_cast<GLFWwindow*>(p); }
}  // namespace

Window::Window(uint32_t width, uint32_t height, const std::string& title) {
    const GlfwApi& g = glfw();
    if (!g.init())
        throw InputError("--window: cannot open a window (no display?); set DISPLAY, or drop --window to render headless");
    if (!g.vulkan_supported()) {
        g.terminate();
        throw InputError("--window: GLFW finds no Vulkan loader with window-system support");
    }
    g.window_hint(GLFW_CLIENT_API, GLFW_NO_API);
    g.window_hint(GLFW_RESIZABLE, GLFW_FALSE);
    native_ = g.create_window(int(width), int(height), title.c_str(), nullptr, nullptr);
    if (!native_) {
        g.terminate();
        throw InputError("--window: glfwCreateWindow failed; drop --window to render headless");
    }
    // A press and release between two polls still reads as pressed (Escape, below).
    g.set_input_mode(win(native_), GLFW_STICKY_KEYS, GLFW_TRUE);
}

Window::~Window() {
    if (native_) glfw().destroy_window(win(native_));
    glfw().terminate();
}

// Escape ends the session as closing the window does: a desktop with no window manager has no
// close button, and it is how `seatmark launch` logs a remote session off (xrdp keeps
// disconnected sessions, and the session's end is what ends the desktop).
bool Window::should_close() const {
    return glfw().window_should_close(win(native_)) || glfw().get_key(win(native_), GLFW_KEY_ESCAPE) == GLFW_PRESS;
}

void Window::poll() { glfw().poll_events(); }

std::vector<const char*> Window::instance_extensions() const {
    uint32_t n = 0;
    const char** names = glfw().required_instance_extensions(&n);
    return std::vector<const char*>(names, names + n);
}

VkSurfaceKHR Window::create_surface(VkInstance instance) const {
    VkSurfaceKHR s = VK_NULL_HANDLE;
    vk_check(glfw().create_window_surface(instance, win(native_), nullptr, &s), "glfwCreateWindowSurface");
    return s;
}

}  // namespace seatmark::client
