// The NVML backend for real through its loader: SEATMARK_NVML_LIBRARY points
// it at libfake-nvml.so (tests/fakes/fake_nvml.cpp), which answers from a
// script and logs every call it got.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "core/gpu_memory_check.h"
#include "orchestrator/gpu_nvml.h"
#include "orchestrator/gpu_telemetry.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::orchestrator;

namespace {

// Points the loader at the fake with `script` for the scope of one test.
struct FakeNvml {
    test::TempDir dir;
    std::string log = dir.file("calls.log");
    explicit FakeNvml(const std::string& script) {
        test::write_file(dir.file("script"), "log path=" + log + "\n" + script);
        setenv("SEATMARK_FAKE_NVML_SCRIPT", dir.file("script").c_str(), 1);
        setenv(nvml_library_env, SEATMARK_FAKE_NVML, 1);
    }
    ~FakeNvml() {
        unsetenv("SEATMARK_FAKE_NVML_SCRIPT");
        unsetenv(nvml_library_env);
    }
    std::vector<std::string> calls() const {
        std::vector<std::string> out;
        std::istringstream in(test::read_file(log));
        for (std::string l; std::getline(in, l);) out.push_back(l);
        return out;
    }
};

// A pid that certainly existed and is gone now.
pid_t dead_pid() {
    pid_t p = fork();
    if (p == 0) _exit(0);
    int st = 0;
    waitpid(p, &st, 0);
    return p;
}

std::string value(const std::string& line, const std::string& key) {
    auto at = line.find(key + "=");
    if (at == std::string::npos) return "";
    auto start = at + key.size() + 1;
    return line.substr(start, line.find(' ', start) - start);
}

const store::SampleRow* row(const std::vector<store::SampleRow>& rows, const std::string& metric,
                            std::optional<int> session = std::nullopt) {
    for (const auto& r : rows)
        if (r.metric == metric && r.session_id == session) return &r;
    return nullptr;
}

}  // namespace

TEST_CASE("NVML through the loader: device figures, several processes, stale and bogus samples dropped") {
    test::BackgroundProcess other({"/bin/sleep", "30"});
    const pid_t a = getpid(), b = other.pid(), gone = dead_pid();
    const std::string A = std::to_string(a), B = std::to_string(b), G = std::to_string(gone);
    FakeNvml fake("driver version=550.54.14\n"
                  "device name=\"Fake RTX 6000 Ada\" util=57 mem_util=21 mem_total=51539607552 mem_used=8589934592 "
                  "enc=3 dec=4 power_mw=212345 temp=61 sm_mhz=1980 mem_mhz=9001 reasons=4\n"
                  "sample pid=" + A + " sm=40 mem=10 enc=1 dec=2\n"
                  "sample pid=" + B + " sm=25 mem=5 enc=0 dec=0\n"
                  "sample pid=1 sm=30 mem=3 enc=0 dec=0\n"           // alive, not a session
                  "sample pid=" + G + " sm=50 mem=9 enc=0 dec=0\n"   // stale pid: the process is gone
                  "sample pid=" + A + " sm=250 mem=10 enc=0 dec=0\n" // over 100: bogus
                  "sample pid=" + B + " sm=90 mem=9 enc=0 dec=0 stale\n"  // timestamp not newer than last seen
                  "graphics pid=" + A + " mem=1073741824\n"
                  "compute pid=" + A + " mem=1073741824\n"           // on both lists: counted once
                  "graphics pid=" + B + " mem=536870912\n"
                  "graphics pid=" + G + " mem=999\n");
    NvmlOpen n = open_nvml();
    INFO(n.status.detail);
    REQUIRE(n.status.available);
    REQUIRE(n.sampler);
    CHECK(n.sampler->source() == "nvml");
    CHECK(n.status.detail.find("550.54.14") != std::string::npos);
    REQUIRE(n.status.devices.size() == 1);
    CHECK(n.status.devices[0].find("Fake RTX 6000 Ada") != std::string::npos);

    std::vector<GpuClient> clients = {{0, a, Renderer::gpu}, {1, b, Renderer::gpu}};
    GpuSnapshot s = n.sampler->sample(1000, clients);
    CHECK(s.errors.empty());
    REQUIRE(s.devices.size() == 1);
    const auto& d = s.devices[0];
    CHECK(d.name == "Fake RTX 6000 Ada");
    CHECK(*d.util_pct == 57);
    CHECK(*d.mem_util_pct == 21);
    CHECK(*d.mem_used_bytes == 8589934592.0);
    CHECK(*d.mem_total_bytes == 51539607552.0);
    CHECK(*d.enc_pct == 3);
    CHECK(*d.dec_pct == 4);
    CHECK(*d.power_w == doctest::Approx(212.345));
    CHECK(*d.temp_c == 61);
    CHECK(*d.sm_clock_mhz == 1980);
    CHECK(*d.mem_clock_mhz == 9001);
    CHECK(*d.throttle_reasons == 4);  // through the older ...ThrottleReasons name

    REQUIRE(s.session(0));
    CHECK(*s.session(0)->share_pct == 40);  // the 250 % sample left out
    CHECK(*s.session(0)->enc_pct == 1);
    CHECK(*s.session(0)->dec_pct == 2);
    CHECK(*s.session(0)->mem_bytes == 1073741824.0);
    REQUIRE(s.session(1));
    CHECK(*s.session(1)->share_pct == 25);  // the stale 90 % sample left out
    CHECK(*s.session(1)->mem_bytes == 536870912.0);
    bool saw_init = false, saw_gone = false;
    for (const auto& p : s.processes) {
        if (p.pid == 1) {
            saw_init = true;
            CHECK(p.session_id == -1);
        }
        saw_gone |= p.pid == gone;
    }
    CHECK(saw_init);
    CHECK_FALSE(saw_gone);

    auto rows = gpu_sample_rows(s);
    for (const char* m : {"gpu_util_pct", "gpu_mem_util_pct", "gpu_mem_used_bytes", "gpu_mem_total_bytes",
                          "gpu_enc_pct", "gpu_dec_pct", "gpu_power_w", "gpu_temp_c", "gpu_sm_clock_mhz",
                          "gpu_mem_clock_mhz", "gpu_throttle_reasons"}) {
        CAPTURE(m);
        REQUIRE(row(rows, m));
        CHECK(row(rows, m)->source == "nvml");
    }
    REQUIRE(row(rows, "gpu_share_pct", 0));
    CHECK(row(rows, "gpu_share_pct", 0)->value == 40);
    CHECK(row(rows, "gpu_share_pct", 0)->source == "nvml");
    CHECK(row(rows, "gpu_mem_bytes", 1)->value == 536870912.0);
    for (const auto& r : rows) CHECK(r.session_id != -1);  // a non-session process gets no row

    // The second call passes the newest timestamp the first one returned.
    n.sampler->sample(2000, clients);
    std::vector<std::string> util_calls;
    for (const auto& c : fake.calls())
        if (c.rfind("nvmlDeviceGetProcessUtilization", 0) == 0 && value(c, "rc") == "0") util_calls.push_back(c);
    REQUIRE(util_calls.size() == 2);
    CHECK(value(util_calls[0], "last_seen") == "0");
    CHECK(value(util_calls[1], "last_seen") == value(util_calls[0], "newest"));

    n.sampler.reset();
    auto calls = fake.calls();
    CHECK(calls.back() == "nvmlShutdown");
    for (const auto& c : calls) CHECK(c.find("Set") == std::string::npos);  // never changes the card
}

TEST_CASE("NVML NOT_FOUND for process utilization: device samples, no process samples") {
    FakeNvml fake("device name=\"Fake A\" util=12 mem_total=1000 mem_used=100 proc_util_rc=6\n");
    NvmlOpen n = open_nvml();
    REQUIRE(n.sampler);
    GpuSnapshot s = n.sampler->sample(1, {{0, getpid(), Renderer::gpu}});
    CHECK(s.processes.empty());
    CHECK(s.errors.empty());  // NOT_FOUND means no new sample, not a failure
    REQUIRE(s.devices.size() == 1);
    CHECK(*s.devices[0].util_pct == 12);
    CHECK_FALSE(s.devices[0].enc_pct.has_value());  // not in the script: NOT_SUPPORTED
    auto rows = gpu_sample_rows(s);
    CHECK(row(rows, "gpu_util_pct"));
    CHECK_FALSE(row(rows, "gpu_share_pct", 0));
}

TEST_CASE("NVML errors other than NOT_FOUND are reported once") {
    FakeNvml fake("device name=\"Fake A\" util=12 proc_util_rc=15\n");
    NvmlOpen n = open_nvml();
    REQUIRE(n.sampler);
    GpuSnapshot s = n.sampler->sample(1, {});
    REQUIRE(s.errors.size() == 1);
    CHECK(s.errors[0].find("nvmlDeviceGetProcessUtilization") != std::string::npos);
    CHECK(s.errors[0].find("GPU is lost") != std::string::npos);
    CHECK(n.sampler->sample(2, {}).errors.empty());
}

TEST_CASE("NVML init failure: the backend is unavailable, with the reason") {
    SUBCASE("driver not loaded") {
        FakeNvml fake("init rc=9\n");
        NvmlOpen n = open_nvml();
        CHECK_FALSE(n.status.available);
        CHECK(n.sampler == nullptr);
        CHECK(n.status.detail.find("NVIDIA driver not loaded") != std::string::npos);
        CHECK(n.status.detail.find("Driver Not Loaded") != std::string::npos);
    }
    SUBCASE("no permission") {
        FakeNvml fake("init rc=4\n");
        NvmlOpen n = open_nvml();
        CHECK_FALSE(n.status.available);
        CHECK(n.status.detail.rfind("no permission: ", 0) == 0);
    }
    SUBCASE("no device") {
        FakeNvml fake("");
        NvmlOpen n = open_nvml();
        CHECK_FALSE(n.status.available);
        CHECK(n.status.detail.find("no NVIDIA GPU") != std::string::npos);
        CHECK(fake.calls().back() == "nvmlShutdown");  // initialised, so shut down again
    }
}

TEST_CASE("NVML library missing or not NVML") {
    NvmlOpen missing = open_nvml("/nonexistent/libnvidia-ml.so.1");
    CHECK_FALSE(missing.status.available);
    CHECK(missing.status.detail.rfind("library missing: ", 0) == 0);
    CHECK(missing.status.detail.find("/nonexistent/libnvidia-ml.so.1") != std::string::npos);
    NvmlOpen wrong = open_nvml("libm.so.6");
    CHECK_FALSE(wrong.status.available);
    CHECK(wrong.status.detail == "not NVML: libm.so.6 lacks nvmlInit_v2");
    CHECK(nvml_library_name("x.so") == "x.so");
    unsetenv(nvml_library_env);
    CHECK(nvml_library_name() == "libnvidia-ml.so.1");
}

TEST_CASE("several NVIDIA devices: host aggregate rows and gpuN_ rows, util over 100 dropped") {
    FakeNvml fake("device name=\"Fake A\" util=150 mem_total=1000 mem_used=500 power_mw=100000 temp=50 reasons=1\n"
                  "device name=\"Fake B\" util=40 mem_total=3000 mem_used=1000 power_mw=50000 temp=70 reasons=4\n");
    NvmlOpen n = open_nvml();
    REQUIRE(n.sampler);
    GpuSnapshot s = n.sampler->sample(1, {});
    REQUIRE(s.devices.size() == 2);
    CHECK_FALSE(s.devices[0].util_pct.has_value());
    auto rows = gpu_sample_rows(s);
    CHECK(row(rows, "gpu_util_pct")->value == 40);  // the mean over devices that gave a valid value
    CHECK(row(rows, "gpu_mem_used_bytes")->value == 1500);
    CHECK(row(rows, "gpu_mem_total_bytes")->value == 4000);
    CHECK(row(rows, "gpu_power_w")->value == doctest::Approx(150));
    CHECK(row(rows, "gpu_temp_c")->value == 70);
    CHECK(row(rows, "gpu_throttle_reasons")->value == 5);
    CHECK_FALSE(row(rows, "gpu0_util_pct"));
    CHECK(row(rows, "gpu1_util_pct")->value == 40);
    CHECK(row(rows, "gpu0_mem_used_bytes")->value == 500);
}

TEST_CASE("GpuTelemetry over NVML: memory history for the SLA bound, software shares only for CPU renderers") {
    FakeNvml fake("device name=\"Fake A\" util=10 mem_total=1000 mem_used=960\n"
                  "sample pid=" + std::to_string(getpid()) + " sm=20 mem=1 enc=0 dec=0\n");
    GpuOptions o;
    o.dev_dri = "/nonexistent-dri";
    GpuTelemetry t(open_gpu_backends(o), 1);
    CHECK(t.backend() == "nvml");
    CHECK(t.describe().rfind("nvml: NVIDIA driver", 0) == 0);
    REQUIRE(t.unavailable().size() == 1);
    CHECK(t.unavailable()[0].rfind("drm: no DRM devices", 0) == 0);
    std::vector<GpuClient> clients = {{0, getpid(), Renderer::gpu}, {1, getppid(), Renderer::software}};
    t.sample(1'000'000'000, clients);
    GpuSnapshot s = t.sample(2'000'000'000, clients);
    REQUIRE(s.session(0));
    CHECK(s.session(0)->source == "nvml");
    REQUIRE(s.session(1));
    CHECK(s.session(1)->source == "software");

    auto fail = t.check_memory(0, 3'000'000'000, 95);
    CHECK(fail.checked);
    CHECK_FALSE(fail.pass);
    CHECK(fail.detail == "GPU memory 96.0 % >= 95.0 % (nvml, device 0)");
    CHECK(t.check_memory(0, 3'000'000'000, 97).pass);
    auto none = t.check_memory(5'000'000'000, 6'000'000'000, 95);
    CHECK_FALSE(none.checked);
    CHECK(none.pass);

    // A new step forgets what came before it; a judgement already under way keeps its copy.
    auto under_way = t.memory_check();
    t.forget_memory_before(1'500'000'000);
    CHECK_FALSE(t.check_memory(0, 1'500'000'000, 95).checked);
    CHECK_FALSE(t.check_memory(1'500'000'000, 3'000'000'000, 95).pass);  // the 2 s sample is kept
    CHECK_FALSE(under_way(0, 1'500'000'000, 95).pass);
    t.forget_memory_before(3'000'000'000);
    CHECK_FALSE(t.check_memory(0, 3'000'000'000, 95).checked);
    t.sample(4'000'000'000, clients);
    CHECK_FALSE(t.check_memory(3'000'000'000, 5'000'000'000, 95).pass);
}

TEST_CASE("the GPU memory bound: peak over the window and devices") {
    std::vector<core::GpuMemoryPoint> pts = {{10, 0, 50, 100, "nvml"}, {20, 1, 90, 100, "nvml"}, {30, 0, 99, 100, "nvml"}};
    auto c = core::check_gpu_memory(pts, 0, 25, 95);
    CHECK(c.checked);
    CHECK(c.pass);
    CHECK(c.peak_pct == doctest::Approx(90));
    CHECK_FALSE(core::check_gpu_memory(pts, 0, 31, 95).pass);
    auto none = core::check_gpu_memory(pts, 40, 50, 95, "software renderer");
    CHECK_FALSE(none.checked);
    CHECK(none.detail == "GPU memory bound (< 95.0 %) not checked: no GPU memory samples (software renderer)");
}
