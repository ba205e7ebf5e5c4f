#pragma once
// GLFW, loaded with dlopen only when a session asks for --window. Linked at build
// time it would map libglfw, libEGL, libOpenGL and libX11 into every headless
// session (the measured process must carry only what it needs), so the session
// resolves the few functions it calls here instead.
#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

namespace seatmark::client {

struct GlfwApi {
    decltype(&::glfwInit) init;
    decltype(&::glfwTerminate) terminate;
    decltype(&::glfwVulkanSupported) vulkan_supported;
    decltype(&::glfwWindowHint) window_hint;
    decltype(&::glfwCreateWindow) create_window;
    decltype(&::glfwDestroyWindow) destroy_window;
    decltype(&::glfwWindowShouldClose) window_should_close;
    decltype(&::glfwPollEvents) poll_events;
    decltype(&::glfwGetKey) get_key;
    decltype(&::glfwSetInputMode) set_input_mode;
    decltype(&::glfwGetRequiredInstanceExtensions) required_instance_extensions;
    decltype(&::glfwCreateWindowSurface) create_window_surface;
};

// Loads libglfw.so.3 on first use (kept loaded for the process's life); throws
// InputError naming the library and the package to install when it cannot.
const GlfwApi& glfw();

}  // namespace seatmark::client
