// `seatmark probe` and a whole `seatmark run` on this machine: what they say
// about GPU telemetry (lavapipe, no NVML, no DRM fdinfo, software shares).
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "store/store_reader.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {
const std::string no_nvml = "SEATMARK_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1";
bool has_dri() { return std::filesystem::exists("/dev/dri"); }

std::string fake_script(const TempDir& dir, const std::string& device) {
    write_file(dir.file("nvml.script"), device);
    return "SEATMARK_FAKE_NVML_SCRIPT=" + dir.file("nvml.script");
}

std::string plan() {
    return "name = \"gpu\"\n[run]\nallow_software = true\nheartbeat_timeout = \"5s\"\nstop = \"max\"\n"
           "[steps]\nlist = [1]\nsettle = \"1s\"\nwindow = \"2s\"\n[[mix]]\nprofile = \"ci-tiny\"\n";
}
}  // namespace

TEST_CASE("seatmark probe tells what works here: lavapipe, no NVML (why), DRM, software") {
    auto r = run_process(seatmark_argv({"probe"}), 60, {no_nvml});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("Vulkan devices:") != std::string::npos);
    CHECK(r.out.find("llvmpipe") != std::string::npos);
    CHECK(r.out.find("software renderer") != std::string::npos);
    CHECK(r.out.find("timestamps: ") != std::string::npos);
    CHECK(r.out.find("nvml      unavailable  library missing: /nonexistent/libnvidia-ml.so.1") != std::string::npos);
    if (!has_dri()) {
        CHECK(r.out.find("drm       unavailable  no DRM devices: /dev/dri does not exist") != std::string::npos);
        CHECK(r.out.find("A run here samples GPU sharing with: software") != std::string::npos);
    }
    CHECK(r.out.find("software  available") != std::string::npos);

    auto j = run_process(seatmark_argv({"probe", "--json"}), 60, {no_nvml});
    REQUIRE(j.exit_code == 0);
    auto doc = nlohmann::json::parse(j.out);
    bool lavapipe = false;
    for (const auto& d : doc["vulkan_devices"]) {
        lavapipe |= d["software"].get<bool>() && d["driver_name"] == "llvmpipe";
        CHECK(d.contains("api_version"));
        CHECK(d.contains("timestamp_valid_bits"));
    }
    CHECK(lavapipe);
    REQUIRE(doc["telemetry"].size() == 3);
    CHECK(doc["telemetry"][0]["backend"] == "nvml");
    CHECK(doc["telemetry"][0]["available"] == false);
    CHECK(doc["telemetry"][0]["reason"].get<std::string>().rfind("library missing: ", 0) == 0);
    CHECK(doc["telemetry"][1]["backend"] == "drm");
    if (!has_dri()) CHECK(doc["telemetry"][1]["available"] == false);
    CHECK(doc["telemetry"][2]["backend"] == "software");
    CHECK(doc["telemetry"][2]["available"] == true);

    auto help = run_process(seatmark_argv({"probe", "--help"}), 30);
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("Example:") != std::string::npos);
    CHECK(help.out.find("SEATMARK_NVML_LIBRARY") != std::string::npos);
}

TEST_CASE("seatmark probe with an NVML library that works lists its devices") {
    TempDir dir;
    auto r = run_process(seatmark_argv({"probe"}), 60,
                         {std::string("SEATMARK_NVML_LIBRARY=") + SEATMARK_FAKE_NVML,
                          fake_script(dir, "driver version=550.54.14\ndevice name=\"Fake L40S\" mem_total=48305799168\n")});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("nvml      available    NVIDIA driver 550.54.14") != std::string::npos);
    CHECK(r.out.find("0: Fake L40S, 46068 MiB") != std::string::npos);
    CHECK(r.out.find("A run here samples GPU sharing with: nvml") != std::string::npos);
}

TEST_CASE("a run on a machine without GPU telemetry records why, and labelled software shares") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan());
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}), 120,
                         {no_nvml});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    store::StoreReader db(dir.file("run.db"));
    std::string backend, nvml_why, unchecked;
    for (const auto& e : db.events()) {
        if (e.kind == "gpu-backend") backend = e.detail;
        if (e.kind == "gpu-unavailable" && e.detail.rfind("nvml: ", 0) == 0) nvml_why = e.detail;
        if (e.kind == "sla-unchecked") unchecked = e.detail;
    }
    INFO(backend);
    if (!has_dri()) CHECK(backend.rfind("software: ", 0) == 0);
    CHECK(backend.find("nvml: library missing: /nonexistent/libnvidia-ml.so.1") != std::string::npos);
    CHECK(nvml_why.rfind("nvml: library missing: ", 0) == 0);
    if (!has_dri()) CHECK(unchecked.find("GPU memory bound (< 95.0 %) not checked") != std::string::npos);

    store::SampleQuery q;
    q.metric = "gpu_share_pct";
    auto shares = db.samples(q);
    REQUIRE(!shares.empty());
    double peak = 0;
    for (const auto& s : shares) {
        CHECK(s.source == "software");
        CHECK(s.session_id == 0);
        peak = std::max(peak, s.value);
    }
    CHECK(peak > 0);
    if (!has_dri()) {
        store::SampleQuery dev;
        dev.host_wide = true;
        for (const auto& s : db.samples(dev)) CHECK(s.metric.rfind("gpu", 0) != 0);  // no device is claimed
    }
}

TEST_CASE("a run whose GPU memory reaches the SLA bound fails the step, saying so") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan());
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}), 120,
                         {std::string("SEATMARK_NVML_LIBRARY=") + SEATMARK_FAKE_NVML,
                          fake_script(dir, "device name=\"Fake A\" util=33 mem_total=1000 mem_used=970\n")});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    store::StoreReader db(dir.file("run.db"));
    auto steps = db.steps();
    REQUIRE(steps.size() == 1);
    REQUIRE(steps[0].verdict.has_value());
    CHECK(*steps[0].verdict == "fail");
    bool said = false;
    for (const auto& e : db.events()) {
        if (e.kind == "gpu-backend") CHECK(e.detail.rfind("nvml: ", 0) == 0);
        said |= e.kind == "step-verdict" && e.detail.find("GPU memory 97.0 % >= 95.0 % (nvml, device 0)") != std::string::npos;
    }
    CHECK(said);
    store::SampleQuery q;
    q.metric = "gpu_util_pct";
    auto util = db.samples(q);
    REQUIRE(!util.empty());
    CHECK(util[0].source == "nvml");
    CHECK(util[0].value == 33);
    // The session itself renders on lavapipe: its share is still its CPU time, labelled software.
    q.metric = "gpu_share_pct";
    for (const auto& s : db.samples(q)) CHECK(s.source == "software");
}
