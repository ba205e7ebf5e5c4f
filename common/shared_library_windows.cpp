#include <windows.h>

#include "common/shared_library.h"
#include "common/win_text.h"

namespace seatmark {

std::unique_ptr<SharedLibrary> SharedLibrary::open(const std::string& name, std::string& why) {
    const std::wstring w = wide(name);
    const bool has_path = name.find_first_of("\\/:") != std::string::npos;
    // A bare name from System32 only: the current folder (a user's share) must not plant a DLL.
    HMODULE h = has_path ? LoadLibraryExW(w.c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH)
                         : LoadLibraryExW(w.c_str(), nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (!h) {
        why = name + ": " + win_error_text(GetLastError());
        return nullptr;
    }
    std::unique_ptr<SharedLibrary> lib(new SharedLibrary);
    lib->handle_ = h;
    return lib;
}

SharedLibrary::~SharedLibrary() {
    if (handle_) FreeLibrary(static_cast<HMODULE>(handle_));
}

void* SharedLibrary::symbol(const char* name) const {
    return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(handle_), name));
}

// The NVIDIA driver (R390 and later, DCH drivers) puts nvml.dll in System32.
std::string nvml_system_library() { return "nvml.dll"; }

}  // namespace seatmark
