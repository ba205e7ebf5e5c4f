// --window on Windows: a plain Win32 window and a VK_KHR_win32_surface (no GLFW to ship).
#include <windows.h>

// vulkan.h brings vulkan_win32.h: VK_USE_PLATFORM_WIN32_KHR is set for this build.

#include "client/vk_check.h"
#include "client/window.h"
#include "common/errors.h"
#include "common/win_text.h"

namespace seatmark::client {

namespace {

constexpr wchar_t class_name[] = L"seatmark.session";
bool closed = false;  // one window per session process

LRESULT CALLBACK on_message(HWND hwnd, UINT msg, WPARAM w, LPARAM l) {
    // Escape closes too, as on Linux (client/window_posix.cpp).
    if (msg == WM_CLOSE || (msg == WM_KEYDOWN && w == VK_ESCAPE)) {
        closed = true;  // the session ends as when GLFW's close flag is set; the window goes with ~Window
        return 0;
    }
    return DefWindowProcW(hwnd, msg, w, l);
}

HWND hwnd(void* p) { return static_cast<HWND>(p); }

}  // namespace

Window::Window(uint32_t width, uint32_t height, const std::string& title) {
    HINSTANCE inst = GetModuleHandleW(nullptr);
    WNDCLASSEXW wc{};
    wc.cbSize = sizeof wc;
    wc.lpfnWndProc = on_message;
    wc.hInstance = inst;
    wc.hCursor = LoadCursorW(nullptr, MAKEINTRESOURCEW(32512));  // IDC_ARROW
    wc.lpszClassName = class_name;
    if (!RegisterClassExW(&wc) && GetLastError() != ERROR_CLASS_ALREADY_EXISTS)
        throw InputError("--window: cannot register a window class (" + win_error_text(GetLastError()) +
                         "); drop --window to render headless");
    // The client area is the frame's size, as with GLFW: grow the outer rectangle by the borders.
    const DWORD style = WS_OVERLAPPED | WS_CAPTION | WS_SYSMENU | WS_MINIMIZEBOX;
    RECT r{0, 0, LONG(width), LONG(height)};
    AdjustWindowRect(&r, style, FALSE);
    HWND h = CreateWindowExW(0, class_name, wide(title).c_str(), style, CW_USEDEFAULT, CW_USEDEFAULT, r.right - r.left,
                             r.bottom - r.top, nullptr, nullptr, inst, nullptr);
    if (!h)
        throw InputError("--window: CreateWindowEx failed (" + win_error_text(GetLastError()) +
                         "); is this a service session without a desktop? drop --window to render headless");
    ShowWindow(h, SW_SHOWNORMAL);
    native_ = h;
}

Window::~Window() {
    if (native_) DestroyWindow(hwnd(native_));
}

bool Window::should_close() const { return closed; }

void Window::poll() {
    MSG m;
    while (PeekMessageW(&m, nullptr, 0, 0, PM_REMOVE)) {
        TranslateMessage(&m);
        DispatchMessageW(&m);
    }
}

std::vector<const char*> Window::instance_extensions() const {
    return {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_WIN32_SURFACE_EXTENSION_NAME};
}

VkSurfaceKHR Window::create_surface(VkInstance instance) const {
    VkWin32SurfaceCreateInfoKHR ci{VK_STRUCTURE_TYPE_WIN32_SURFACE_CREATE_INFO_KHR};
    ci.hinstance = GetModuleHandleW(nullptr);
    ci.hwnd = hwnd(native_);
    VkSurfaceKHR s = VK_NULL_HANDLE;
    vk_check(vkCreateWin32SurfaceKHR(instance, &ci, nullptr, &s), "vkCreateWin32SurfaceKHR");
    return s;
}

}  // namespace seatmark::client
