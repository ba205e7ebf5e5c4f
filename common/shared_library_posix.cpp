#include <dlfcn.h>

#include "common/shared_library.h"

namespace seatmark {

std::unique_ptr<SharedLibrary> SharedLibrary::open(const std::string& name, std::string& why) {
    dlerror();
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        why = e ? e : name + ": cannot be loaded";
        return nullptr;
    }
    std::unique_ptr<SharedLibrary> lib(new SharedLibrary);
    lib->handle_ = h;
    return lib;
}

SharedLibrary::~SharedLibrary() {
    if (handle_) dlclose(handle_);
}

void* SharedLibrary::symbol(const char* name) const { return dlsym(handle_, name); }

// The soname the NVIDIA driver installs.
std::string nvml_system_library() { return "libnvidia-ml.so.1"; }

}  // namespace seatmark
