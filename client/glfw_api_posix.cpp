#include "client/glfw_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "common/errors.h"

namespace seatmark::client {

namespace {

// GLFW 3's ABI soname; Debian's libglfw3 (or libglfw3-wayland) provides it.
constexpr const char* glfw_soname = "libglfw.so.3";

template <typename F>
void resolve(void* lib, F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f)
        throw InputError(std::string("--window: ") + glfw_soname + " lacks " + name +
                         "; install GLFW 3.3 or newer (Debian: libglfw3)");
}

GlfwApi load() {
    void* lib = dlopen(glfw_soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        throw InputError(std::string("--window: cannot load ") + glfw_soname + " (" + dlerror() +
                         "); install libglfw3, or drop --window to render headless");
    GlfwApi a{};
    resolve(lib, a.init, "glfwInit");
    resolve(lib, a.terminate, "glfwTerminate");
    resolve(lib, a.vulkan_supported, "glfwVulkanSupported");
    resolve(lib, a.window_hint, "glfwWindowHint");
    resolve(lib, a.create_window, "glfwCreateWindow");
    resolve(lib, a.destroy_window, "glfwDestroyWindow");
    resolve(lib, a.window_should_close, "glfwWindowShouldClose");
    resolve(lib, a.get_key, "glfwGetKey");
    resolve(lib, a.set_input_mode, "glfwSetInputMode");
    resolve(lib, a.poll_events, "glfwPollEvents");
    resolve(lib, a.required_instance_extensions, "glfwGetRequiredInstanceExtensions");
    resolve(lib, a.create_window_surface, "glfwCreateWindowSurface");
    return a;
}

}  // namespace

const GlfwApi& glfw() {
    static std::once_flag once;
    static GlfwApi api;
    std::call_once(once, [] { api = load(); });
    return api;
}

}  // namespace seatmark::client
