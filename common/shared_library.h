#pragma once
// A library loaded at run time (NVML: libnvidia-ml.so.1 on Linux, nvml.dll on Windows; GLFW),
// so the build needs no vendor package and a host without it simply lacks that backend.
// common/shared_library_posix.cpp (dlopen) and common/shared_library_windows.cpp (LoadLibraryEx).
#include <memory>
#include <string>

namespace seatmark {

class SharedLibrary {
public:
    // `name`: a path, or a bare name looked up the system's way (ld.so; on Windows System32
    // only, never the current folder). Null with `why` set ("<loader's message>") when it fails.
    static std::unique_ptr<SharedLibrary> open(const std::string& name, std::string& why);
    ~SharedLibrary();
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    void* symbol(const char* name) const;  // null when missing

private:
    SharedLibrary() = default;
    void* handle_ = nullptr;
};

// The system's file name of a vendor library: "libnvidia-ml.so.1" / "nvml.dll".
std::string nvml_system_library();

}  // namespace seatmark
