// The NVML loader on the fake NVML library, written to run on both platforms: in the Linux suite
// on libfake-nvml.so, and as a Windows executable under Wine on nvml.dll built from the same
// tests/fakes/fake_nvml.cpp (tests/windows/CMakeLists.txt) and loaded by LoadLibraryEx.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/self_exe.h"
#include "common/shared_library.h"
#include "orchestrator/gpu_nvml.h"

using namespace seatmark;
using namespace seatmark::orchestrator;

namespace {

// putenv keeps the pointer it is given (POSIX), so the strings live as long as the process.
void set_env(const std::string& kv) {
    static std::vector<std::unique_ptr<std::string>> keep;
    keep.push_back(std::make_unique<std::string>(kv));
    putenv(keep.back()->data());
}

std::filesystem::path script_file(const std::string& text) {
    auto p = std::filesystem::temp_directory_path() / ("seatmark-nvml-dll-" + std::to_string(current_pid()) + ".txt");
    std::ofstream(p) << text;
    return p;
}

}  // namespace

TEST_CASE("NVML loaded the platform's way from the fake library: device and this process's figures") {
    const std::string pid = std::to_string(current_pid());
    const auto script = script_file("driver version=572.16\n"
                                    "device name=\"Fake RTX PRO 6000\" util=57 mem_util=21 mem_total=103079215104 "
                                    "mem_used=8589934592 enc=3 dec=4 power_mw=212345 temp=61\n"
                                    "sample pid=" + pid + " sm=40 mem=10 enc=1 dec=2\n"
                                    "graphics pid=" + pid + " mem=1073741824\n");
    set_env("SEATMARK_FAKE_NVML_SCRIPT=" + script.string());
    set_env(std::string(nvml_library_env) + "=" + SEATMARK_FAKE_NVML);
    NvmlOpen n = open_nvml();
    INFO(n.status.detail);
    REQUIRE(n.status.available);
    CHECK(n.status.detail.find("572.16") != std::string::npos);
    std::vector<GpuClient> clients(1);
    clients[0].session_id = 0;
    clients[0].pid = pid_t(current_pid());
    clients[0].renderer = Renderer::gpu;
    GpuSnapshot s = n.sampler->sample(1, clients);
    REQUIRE(s.devices.size() == 1);
    CHECK(s.devices[0].name == "Fake RTX PRO 6000");
    CHECK(*s.devices[0].util_pct == 57);
    CHECK(*s.devices[0].mem_total_bytes == 103079215104.0);
    CHECK(*s.devices[0].power_w == doctest::Approx(212.345));
    REQUIRE(s.session(0));
    CHECK(s.session(0)->source == "nvml");
    CHECK(*s.session(0)->share_pct == 40);
    CHECK(*s.session(0)->mem_bytes == 1073741824.0);
    n.sampler.reset();
    set_env(std::string(nvml_library_env) + "=");
    std::filesystem::remove(script);
}

TEST_CASE("NVML missing: the reason names the library the platform looks for") {
    set_env(std::string(nvml_library_env) + "=");
    CHECK(nvml_library_name() == nvml_system_library());
    NvmlOpen n = open_nvml("no-such-nvml-library");
    CHECK_FALSE(n.status.available);
    CHECK(n.status.detail.rfind("library missing: ", 0) == 0);
    CHECK(n.status.detail.find("no-such-nvml-library") != std::string::npos);
}
