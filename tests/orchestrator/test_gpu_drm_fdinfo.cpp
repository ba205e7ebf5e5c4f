// The DRM fdinfo backend on fixture files in the formats amdgpu, i915 and xe
// print (tests/fixtures/fdinfo/README.md): parsing, client-id dedup, engine
// deltas to busy shares, memory keys, and the sampler over a /proc-like tree.
#include <doctest/doctest.h>

#include <filesystem>

#include "orchestrator/gpu_drm.h"
#include "orchestrator/gpu_drm_fdinfo.h"
#include "orchestrator/gpu_telemetry.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::orchestrator;
using seatmark::test::read_file;

namespace {

const std::string fixtures = std::string(SEATMARK_SOURCE_DIR) + "/tests/fixtures/fdinfo/";

DrmFdinfo parse_fixture(const std::string& rel) {
    auto d = parse_drm_fdinfo(read_file(fixtures + rel));
    REQUIRE_MESSAGE(d.has_value(), rel);
    return *d;
}

// One reading of pid's fds from fixture files (dir/fdN).
DrmReading reading(pid_t pid, const std::string& dir, const std::vector<int>& fds) {
    DrmReading r;
    r.pid = pid;
    for (int fd : fds) r.fds.push_back({fd, parse_fixture(dir + "/fd" + std::to_string(fd))});
    return r;
}

constexpr int64_t t0 = 5'000'000'000, t1 = t0 + 1'000'000'000;

}  // namespace

TEST_CASE("fdinfo sizes: bytes, KiB, MiB, GiB") {
    CHECK(parse_drm_size("0") == 0u);
    CHECK(parse_drm_size("1234567") == 1234567u);
    CHECK(parse_drm_size("190072 KiB") == 190072u * 1024);
    CHECK(parse_drm_size("4 MiB") == 4u << 20);
    CHECK(parse_drm_size("2 GiB") == 2ull << 30);
    CHECK_FALSE(parse_drm_size("12 furlongs").has_value());
    CHECK_FALSE(parse_drm_size("").has_value());
}

TEST_CASE("a file without drm-driver is not a DRM client") {
    CHECK_FALSE(parse_drm_fdinfo("pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1234\n").has_value());
    CHECK_FALSE(parse_drm_fdinfo("").has_value());
}

TEST_CASE("amdgpu fdinfo (6.8+): client, engines, resident memory per region") {
    DrmFdinfo d = parse_fixture("amdgpu/t0/fd7");
    CHECK(d.driver == "amdgpu");
    CHECK(d.pdev == "0000:03:00.0");
    REQUIRE(d.client_id.has_value());
    CHECK(*d.client_id == 1049);
    CHECK(d.engines.at("gfx").busy == 10'000'000'000ull);
    CHECK_FALSE(d.engines.at("gfx").cycles);
    CHECK(d.engines.at("gfx").capacity == 1);
    CHECK(d.engines.at("compute").busy == 2'000'000'000ull);
    CHECK(d.engines.count("dec") == 0);  // amdgpu prints only engines the client used
    CHECK(d.resident_bytes.at("vram") == 190072ull * 1024);
    CHECK(d.resident_bytes.at("gtt") == 4ull << 20);
    CHECK(d.resident_bytes.at("cpu") == 0);
    CHECK(d.total_bytes.at("vram") == 190072ull * 1024);
    CHECK(d.memory_bytes() == (190072ull + 4096) * 1024);
}

TEST_CASE("amdgpu fdinfo (6.1): memory only as drm-memory-*, the cpu domain left out") {
    DrmFdinfo d = parse_fixture("amdgpu/legacy-6.1/fd5");
    CHECK(d.driver == "amdgpu");
    CHECK(*d.client_id == 12);
    CHECK(d.resident_bytes.at("vram") == 310488ull * 1024);
    CHECK(d.resident_bytes.at("gtt") == 34880ull * 1024);
    CHECK(d.memory_bytes() == (310488ull + 34880) * 1024);
    CHECK(d.engines.at("gfx").busy == 10781351614ull);
}

TEST_CASE("i915 fdinfo: engine capacity and system memory regions") {
    DrmFdinfo d = parse_fixture("i915/t0/fd5");
    CHECK(d.driver == "i915");
    CHECK(*d.client_id == 7);
    CHECK(d.engines.at("render").busy == 9288864723ull);
    CHECK(d.engines.at("video").capacity == 2);
    CHECK(d.engines.at("video-enhance").busy == 0);
    CHECK(d.engines.count("capacity-video") == 0);
    CHECK(d.resident_bytes.at("system0") == 119764ull * 1024);
    CHECK(d.resident_bytes.at("stolen-system0") == 0);
    CHECK(d.total_bytes.at("system0") == 226964ull * 1024);
    CHECK(d.memory_bytes() == 119764ull * 1024);
}

TEST_CASE("xe fdinfo: cycle counters, not nanoseconds") {
    DrmFdinfo d = parse_fixture("xe/t0/fd4");
    CHECK(d.driver == "xe");
    CHECK(*d.client_id == 42);
    const auto& rcs = d.engines.at("rcs");
    CHECK(rcs.cycles);
    CHECK(rcs.busy == 28257900ull);
    CHECK(rcs.total_cycles == 7655183225ull);
    CHECK(d.engines.at("vcs").capacity == 2);
    CHECK(d.engines.at("ccs").capacity == 4);
    CHECK(d.engines.count("total-cycles-rcs") == 0);
    CHECK(d.resident_bytes.at("vram0") == 23992ull * 1024);
    CHECK(d.memory_bytes() == (192ull + 23992) * 1024);
}

TEST_CASE("amdgpu: a dup'd fd counts once, two clients add up, busy from engine deltas") {
    DrmUsageTracker tr;
    auto first = tr.update({reading(100, "amdgpu/t0", {7, 9, 12})}, t0);
    const auto& u0 = first.at(100);
    CHECK(u0.clients == 2);  // fd7 and fd9 are client 1049; fd12 is client 1050
    CHECK(u0.memory_bytes == (190072ull + 4096 + 8192 + 2048) * 1024);
    CHECK_FALSE(u0.busy_pct.has_value());  // a first reading has nothing to compare with
    CHECK(u0.driver == "amdgpu");

    auto second = tr.update({reading(100, "amdgpu/t1", {7, 9, 12})}, t1);
    const auto& u1 = second.at(100);
    REQUIRE(u1.busy_pct.has_value());
    CHECK(*u1.busy_pct == doctest::Approx(55.0));  // 45 % + 10 % on gfx, not 100 % from the dup
    CHECK(u1.engine_busy_pct.at("gfx") == doctest::Approx(55.0));
    CHECK(u1.engine_busy_pct.at("compute") == doctest::Approx(5.0));
    CHECK(u1.engine_busy_pct.at("dec") == doctest::Approx(2.0));  // first printed at t1: counted from 0
}

TEST_CASE("i915: busy per engine over its capacity, the busiest engine is the share") {
    DrmUsageTracker tr;
    tr.update({reading(7, "i915/t0", {5, 6})}, t0);
    auto u = tr.update({reading(7, "i915/t1", {5, 6})}, t1).at(7);
    CHECK(u.clients == 1);
    CHECK(u.engine_busy_pct.at("render") == doctest::Approx(60.0));
    CHECK(u.engine_busy_pct.at("video") == doctest::Approx(20.0));  // 400 ms over 2 engines
    CHECK(u.engine_busy_pct.at("copy") == doctest::Approx(0.0));
    CHECK(*u.busy_pct == doctest::Approx(60.0));
}

TEST_CASE("xe: busy cycles over elapsed GPU cycles") {
    DrmUsageTracker tr;
    tr.update({reading(9, "xe/t0", {4})}, t0);
    // The wall time between readings does not matter for cycle counters.
    auto u = tr.update({reading(9, "xe/t1", {4})}, t0 + 3'000'000'000).at(9);
    CHECK(u.engine_busy_pct.at("rcs") == doctest::Approx(40.0));
    CHECK(u.engine_busy_pct.at("vcs") == doctest::Approx(25.0));
    CHECK(u.engine_busy_pct.at("ccs") == doctest::Approx(0.0));
    CHECK(*u.busy_pct == doctest::Approx(40.0));
}

TEST_CASE("a client shared by two processes is counted for the first only") {
    DrmUsageTracker tr;
    tr.update({reading(1, "i915/t0", {5}), reading(2, "i915/t0", {6})}, t0);
    auto out = tr.update({reading(1, "i915/t1", {5}), reading(2, "i915/t1", {6})}, t1);
    CHECK(out.at(1).clients == 1);
    CHECK(*out.at(1).busy_pct == doctest::Approx(60.0));
    CHECK(out.at(2).clients == 0);
    CHECK_FALSE(out.at(2).busy_pct.has_value());
}

TEST_CASE("an engine counter that goes backwards is held at its larger value") {
    DrmUsageTracker tr;
    auto at = [](uint64_t ns) {
        DrmReading r;
        r.pid = 5;
        r.fds.push_back({3, *parse_drm_fdinfo("drm-driver: i915\ndrm-client-id: 1\ndrm-engine-render: " +
                                               std::to_string(ns) + " ns\n")});
        return r;
    };
    tr.update({at(1'000'000'000)}, t0);
    CHECK(*tr.update({at(1'500'000'000)}, t1).at(5).busy_pct == doctest::Approx(50.0));
    CHECK(*tr.update({at(1'400'000'000)}, t1 + 1'000'000'000).at(5).busy_pct == doctest::Approx(0.0));
    // Caught up: the delta is from the larger value seen (1.5 s), not from the dip.
    CHECK(*tr.update({at(1'750'000'000)}, t1 + 2'000'000'000).at(5).busy_pct == doctest::Approx(25.0));
}

TEST_CASE("the DRM sampler reads /proc/PID/fdinfo of DRM fds only, and amdgpu's sysfs") {
    namespace fs = std::filesystem;
    test::TempDir dir;
    const std::string proc = dir.file("proc"), sys = dir.file("sys");
    const pid_t pid = 4242;
    const std::string base = proc + "/" + std::to_string(pid);
    fs::create_directories(base + "/fdinfo");
    fs::create_directories(base + "/fd");
    auto put = [&](const std::string& stage) {
        for (int fd : {7, 9, 12}) fs::copy_file(fixtures + "amdgpu/" + stage + "/fd" + std::to_string(fd),
                                                base + "/fdinfo/" + std::to_string(fd),
                                                fs::copy_options::overwrite_existing);
    };
    put("t0");
    for (int fd : {7, 9, 12}) fs::create_symlink("/dev/dri/renderD128", base + "/fd/" + std::to_string(fd));
    // A socket whose fdinfo happens to hold drm- keys must still be ignored: only /dev/dri links count.
    test::write_file(base + "/fdinfo/3", read_file(fixtures + "i915/t0/fd5"));
    fs::create_symlink("socket:[12345]", base + "/fd/3");
    const std::string dev = sys + "/bus/pci/devices/0000:03:00.0/";
    fs::create_directories(dev);
    test::write_file(dev + "gpu_busy_percent", "37\n");
    test::write_file(dev + "mem_info_vram_used", "1073741824\n");
    test::write_file(dev + "mem_info_vram_total", "17163091968\n");

    auto r = read_drm_fds(pid, proc);
    REQUIRE(r.fds.size() == 3);
    CHECK(r.fds[0].fd == 7);

    auto s = make_drm_sampler(proc, sys, {{"0000:03:00.0", "amdgpu"}});
    CHECK(s->source() == "drm");
    std::vector<GpuClient> clients = {{0, pid, Renderer::gpu}, {1, 999999, Renderer::gpu}};
    auto a = s->sample(t0, clients);
    REQUIRE(a.processes.size() == 1);  // the other session holds no DRM client
    CHECK(a.processes[0].session_id == 0);
    CHECK_FALSE(a.processes[0].share_pct.has_value());
    put("t1");
    auto b = s->sample(t1, clients);
    REQUIRE(b.processes.size() == 1);
    CHECK(b.processes[0].source == "drm");
    CHECK(*b.processes[0].share_pct == doctest::Approx(55.0));
    CHECK(*b.processes[0].mem_bytes == doctest::Approx(double((190072 + 4096 + 8192 + 2048) * 1024)));
    REQUIRE(b.devices.size() == 1);
    CHECK(*b.devices[0].util_pct == 37);
    CHECK(*b.devices[0].mem_total_bytes == 17163091968.0);

    auto rows = gpu_sample_rows(b);
    auto find = [&](const std::string& metric, std::optional<int> session) {
        for (const auto& row : rows)
            if (row.metric == metric && row.session_id == session) return &row;
        return static_cast<const store::SampleRow*>(nullptr);
    };
    REQUIRE(find("gpu_share_pct", 0));
    CHECK(find("gpu_share_pct", 0)->source == "drm");
    REQUIRE(find("gpu_util_pct", std::nullopt));
    CHECK(find("gpu_util_pct", std::nullopt)->value == 37);
    CHECK(find("gpu_mem_used_bytes", std::nullopt));
}

TEST_CASE("open_drm says why DRM is unavailable") {
    test::TempDir dir;
    GpuOptions o;
    o.dev_dri = dir.file("no-such-dri");
    auto missing = open_drm(o);
    CHECK_FALSE(missing.status.available);
    CHECK(missing.sampler == nullptr);
    CHECK(missing.status.detail.find("no DRM devices") != std::string::npos);
    o.dev_dri = dir.path;  // exists, but holds no node
    CHECK(open_drm(o).status.detail.find("no render or card node") != std::string::npos);
    // A node that is not a DRM device prints no drm-* keys in its fdinfo.
    test::write_file(dir.file("renderD128"), "");
    auto silent = open_drm(o);
    CHECK_FALSE(silent.status.available);
    CHECK(silent.status.detail.find("no fdinfo keys found for any DRM client") != std::string::npos);
}
