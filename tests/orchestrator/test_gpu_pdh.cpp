// Windows GPU counters (orchestrator/gpu_pdh.h) on counter data in typeperf's CSV form: the GPU
// Engine and GPU Process Memory counters of an AVD host as typeperf writes them
// (tests/fixtures/pdh/). The fixture is written by hand after the format (PDH-CSV 4.0 header
// with time zone and bias, \\HOST\Object(instance)\Counter paths, CRLF, " " for an instance
// gone), not recorded on a real host: see docs/windows.md. Runs in the
// Linux suite and, as a Windows executable, under Wine (which has no GPU counters).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "common/errors.h"
#include "orchestrator/gpu_pdh.h"

using namespace seatmark::orchestrator;
using namespace seatmark::orchestrator::pdh;

namespace {
std::string fixture(const std::string& name) {
    std::ifstream f(std::string(SEATMARK_SOURCE_DIR) + "/tests/fixtures/pdh/" + name, std::ios::binary);
    REQUIRE(f);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
const ProcessUse* find(const Attribution& a, uint32_t pid) {
    for (const auto& p : a.processes)
        if (p.pid == pid) return &p;
    return nullptr;
}
}  // namespace

TEST_CASE("pdh: instance names parse strictly") {
    auto e = parse_engine_instance("pid_4100_luid_0x00000000_0x0000D1B7_phys_0_eng_3_engtype_VideoEncode");
    REQUIRE(e);
    CHECK(e->pid == 4100);
    CHECK(e->adapter == "luid_0x00000000_0x0000D1B7_phys_0");
    CHECK(e->engine == 3);
    CHECK(e->engine_type == "VideoEncode");
    auto c = parse_engine_instance("pid_7_luid_0x00000000_0x0000D1B7_phys_1_eng_12_engtype_Compute_0#2");
    REQUIRE(c);
    CHECK(c->engine_type == "Compute_0");
    CHECK(c->adapter == "luid_0x00000000_0x0000D1B7_phys_1");
    auto m = parse_memory_instance("pid_4100_luid_0x00000000_0x0000D1B7_phys_0");
    REQUIRE(m);
    CHECK(m->pid == 4100);
    for (const char* bad : {"", "pid_x_luid_0x00000000_0x0000D1B7_phys_0_eng_0_engtype_3D",
                            "pid_1_luid_0x0000_0x0000D1B7_phys_0_eng_0_engtype_3D",
                            "pid_1_luid_0x00000000_0x0000D1B7_phys_0_eng_0_engtype_",
                            "pid_1_luid_0x00000000_0x0000D1B7_phys_0_eng_0", "_Total"})
        CHECK_MESSAGE(!parse_engine_instance(bad), bad);
    CHECK(!parse_memory_instance("pid_1_luid_0x00000000_0x0000D1B7_phys_0_eng_0_engtype_3D"));
    CHECK(!parse_memory_instance("pid_1_luid_0x00000000_0x0000D1B7"));
}

TEST_CASE("pdh: an AVD host's counters in typeperf's CSV attribute GPU use and memory per process") {
    const GpuCounters c = read_typeperf_csv(fixture("avd-host-gpu.csv"), "avd-host-gpu.csv");
    CHECK(c.engine_utilization.size() == 7);  // the blank field of a process gone is left out
    CHECK(c.dedicated_bytes.size() == 4);
    CHECK(c.shared_bytes.size() == 3);
    const Attribution a = attribute(c);
    CHECK(a.problems.empty());
    // Two contexts on the 3D engine add up; the busiest engine is the share.
    const ProcessUse* s1 = find(a, 4100);
    REQUIRE(s1);
    CHECK(s1->share_pct == doctest::Approx(20.0));
    CHECK(s1->busiest_engine == "3D");
    CHECK(s1->by_type_pct.at("Copy") == doctest::Approx(1.25));
    CHECK(*s1->dedicated_bytes == doctest::Approx(805306368.0));
    CHECK(*s1->shared_bytes == doctest::Approx(16777216.0));
    const ProcessUse* s2 = find(a, 4200);
    REQUIRE(s2);
    CHECK(s2->share_pct == doctest::Approx(35.0));
    CHECK(s2->by_type_pct.at("VideoEncode") == doctest::Approx(8.0));
    const ProcessUse* idle = find(a, 5300);
    REQUIRE(idle);
    CHECK(idle->share_pct == 0);
    CHECK(!idle->shared_bytes);
    CHECK(!find(a, 5400));
    // The adapter: its busiest engine's total over every process (3D: 20 + 35 + 3 + 0).
    REQUIRE(a.adapters.size() == 1);
    CHECK(a.adapters[0].util_pct == doctest::Approx(58.0));
    CHECK(*a.adapters[0].dedicated_bytes == doctest::Approx(805306368.0 + 1610612736.0 + 268435456.0 + 4194304.0));

    // Sessions by pid; every figure labelled pdh; others (dwm.exe) kept with session -1.
    std::vector<GpuClient> clients(2);
    clients[0].session_id = 0, clients[0].pid = 4100;
    clients[1].session_id = 1, clients[1].pid = 4200;
    const GpuSnapshot snap = to_snapshot(a, 123, clients);
    CHECK(snap.source == "pdh");
    REQUIRE(snap.session(0));
    CHECK(snap.session(0)->source == "pdh");
    CHECK(*snap.session(0)->share_pct == doctest::Approx(20.0));
    CHECK(*snap.session(0)->mem_bytes == doctest::Approx(805306368.0));
    REQUIRE(snap.session(1));
    CHECK(*snap.session(1)->enc_pct == doctest::Approx(8.0));
    int others = 0;
    for (const auto& p : snap.processes) others += p.session_id == -1;
    CHECK(others == 2);  // dwm.exe and the idle process
    REQUIRE(snap.devices.size() == 1);
    CHECK(*snap.devices[0].util_pct == doctest::Approx(58.0));
}

TEST_CASE("pdh: totals over 100 are capped and said, names not understood are said") {
    GpuCounters c;
    c.engine_utilization = {{"pid_1_luid_0x00000000_0x00000001_phys_0_eng_0_engtype_3D", 80},
                            {"pid_1_luid_0x00000000_0x00000001_phys_0_eng_0_engtype_3D#1", 45},
                            {"pid_2_luid_0x00000000_0x00000001_phys_0_eng_0_engtype_3D", -1},
                            {"garbage", 5}};
    const Attribution a = attribute(c);
    REQUIRE(a.processes.size() == 1);
    CHECK(a.processes[0].share_pct == 100);
    REQUIRE(a.problems.size() == 2);
    CHECK(a.problems[0] == "GPU Engine instance not understood: garbage");
    CHECK(a.problems[1].find("capped at 100") != std::string::npos);
}

TEST_CASE("pdh: a file not in typeperf's form is refused with its line") {
    auto refuses = [](const std::string& text, const std::string& what) {
        try {
            read_typeperf_csv(text, "gpu.csv");
            FAIL("accepted: " << text);
        } catch (const seatmark::InputError& e) {
            CHECK_MESSAGE(std::string(e.what()).find(what) != std::string::npos, e.what());
        }
    };
    refuses("", "empty");
    refuses("\"time\",\"x\"\r\n\"1\",\"2\"\r\n", "gpu.csv:1");
    refuses("\"(PDH-CSV 4.0)\",\"\\\\H\\GPU Engine(a)\\Utilization Percentage\"\r\n", "no sample row");
    refuses("\"(PDH-CSV 4.0)\",\"\\\\H\\GPU Engine(a)\\Utilization Percentage\"\r\n\"t\"\r\n", "gpu.csv:2");
    refuses("\"(PDH-CSV 4.0)\",\"\\\\H\\GPU Engine(a)\\Utilization Percentage\"\r\n\"t\",\"abc\"\r\n", "expected a number");
}

TEST_CASE("pdh: the live counters say why they are not there") {
    // Linux: Windows-only; Wine: pdh.dll has no GPU Engine counters. A real Windows host with a
    // WDDM 2 driver opens them (not testable here).
    const PdhOpen o = open_pdh();
    CHECK(o.status.name == "pdh");
    if (!o.sampler) CHECK(o.status.detail.rfind("not available: ", 0) == 0);
}
