#pragma once
// Runs the Windows build (build-windows/, scripts/build-windows.sh) under Wine for the Linux
// suite: the prefix is made once by the CTest fixture wine/prefix (scripts/wine-prefix.sh), and
// every program runs under xvfb-run, since Wine's Vulkan needs an X display.
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace seatmark::test::wine {

inline std::string windows_dir() { return SEATMARK_WINDOWS_DIR; }

// Fails the test with what to do when the Windows build is not there.
inline std::string exe(const std::string& name) {
    const std::string p = windows_dir() + "/" + name;
    if (!std::filesystem::exists(p))
        throw std::runtime_error(p + " is missing: run scripts/build-windows.sh (scripts/test.sh does) first");
    return p;
}

// A Linux path as the Windows program sees it (Wine maps / to drive Z:).
inline std::string win_path(const std::string& linux_path) {
    std::string w = "Z:" + std::filesystem::absolute(linux_path).string();
    for (auto& c : w)
        if (c == '/') c = '\\';
    return w;
}

inline std::vector<std::string> env() {
    return {std::string("WINEPREFIX=") + SEATMARK_WINE_PREFIX, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml="};
}

inline std::string wine64() {
    for (const char* p : {"/usr/bin/wine64", "/usr/lib/wine/wine64"})
        if (std::filesystem::exists(p)) return p;
    throw std::runtime_error("wine64 is missing: run scripts/deps.sh (Debian packages wine64, libwine)");
}

// argv: xvfb-run -a wine64 EXE ARGS...
inline std::vector<std::string> argv(const std::string& exe_name, std::vector<std::string> args) {
    std::vector<std::string> a{"/usr/bin/xvfb-run", "-a", "-s", "-screen 0 640x480x24", wine64(), exe(exe_name)};
    a.insert(a.end(), args.begin(), args.end());
    return a;
}

inline ProcessResult run(const std::string& exe_name, std::vector<std::string> args, double timeout_s = 120) {
    return run_process(argv(exe_name, std::move(args)), timeout_s, env());
}

}  // namespace seatmark::test::wine
