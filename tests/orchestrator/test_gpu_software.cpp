// The software-renderer backend, live: a real `seatmark session` on lavapipe
// renders on this machine's CPUs, and its share is its process CPU time.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/clock.h"
#include "orchestrator/gpu_software.h"
#include "orchestrator/gpu_telemetry.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::orchestrator;

namespace {
// utime + stime of a process from /proc/PID/stat (fields 14 and 15, after the parenthesised name).
double cpu_seconds(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto close = all.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream in(all.substr(close + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && in >> field; ++i)
        if (i >= 14) ticks += std::stod(field);
    return ticks / double(::sysconf(_SC_CLK_TCK));
}
}  // namespace

TEST_CASE("software backend: a lavapipe session's share is its CPU time, labelled software") {
    test::BackgroundProcess session(test::seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "3s", "--quiet"}));
    GpuBackends none;  // no hardware backend, as on this machine
    GpuTelemetry t(std::move(none));
    CHECK(t.backend() == "software");
    std::vector<GpuClient> clients = {{0, session.pid(), Renderer::software}};
    GpuSnapshot first = t.sample(now_ns(), clients);
    CHECK(first.processes.empty());  // the first sample sets the baseline
    // Until the session has spent CPU time since the baseline (it renders on the CPU), not a fixed nap.
    const double cpu0 = cpu_seconds(session.pid());
    REQUIRE(test::wait_until(20, [&] { return cpu_seconds(session.pid()) > cpu0 + 0.1; }));
    GpuSnapshot s = t.sample(now_ns(), clients);
    CHECK(s.source == "software");
    CHECK(s.devices.empty());  // no GPU is claimed
    REQUIRE(s.session(0));
    CHECK(s.session(0)->source == "software");
    CHECK(*s.session(0)->share_pct > 0);
    CHECK(*s.session(0)->share_pct <= 100);
    CHECK_FALSE(s.session(0)->mem_bytes.has_value());
    auto rows = gpu_sample_rows(s);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].metric == "gpu_share_pct");
    CHECK(rows[0].source == "software");
    CHECK(rows[0].session_id == 0);

    // A session known to render on a GPU gets no software share; an unknown one neither.
    clients = {{0, session.pid(), Renderer::gpu}, {1, getpid(), Renderer::unknown}};
    CHECK(t.sample(now_ns(), clients).processes.empty());
    auto r = session.wait(30);
    CHECK(r.exit_code == 0);
}

TEST_CASE("software sampler: shares of the CPUs it was given, gone processes left out") {
    SoftwareSampler s(4);
    CHECK(s.cpus() == 4);
    CHECK(s.source() == "software");
    auto a = s.sample(1'000'000'000, {{3, getpid(), Renderer::software}, {4, 0x7ffffff0, Renderer::software}});
    CHECK(a.processes.empty());
    // Burn some CPU so the share is above zero.
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    volatile double x = 0;
    while (std::chrono::steady_clock::now() < until) x = x + 1;
    auto b = s.sample(1'400'000'000, {{3, getpid(), Renderer::software}, {4, 0x7ffffff0, Renderer::software}});
    REQUIRE(b.processes.size() == 1);
    CHECK(b.processes[0].session_id == 3);
    CHECK(*b.processes[0].share_pct > 0);
}

TEST_CASE("software sampler: CPU time the orchestrator just read is used as given, not read again") {
    SoftwareSampler s(2);
    // pid 1 exists, but its own CPU time must not be what the share is computed from.
    GpuClient c{7, 1, Renderer::software, 1.0};
    CHECK(s.sample(1'000'000'000, {c}).processes.empty());  // the first sample only sets the baseline
    c.cpu_seconds = 1.5;
    auto snap = s.sample(2'000'000'000, {c});
    REQUIRE(snap.processes.size() == 1);
    CHECK(snap.processes[0].session_id == 7);
    CHECK(*snap.processes[0].share_pct == doctest::Approx(25.0));  // 0.5 s of CPU in 1 s on 2 CPUs
}
