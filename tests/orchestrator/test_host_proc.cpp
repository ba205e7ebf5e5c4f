// The host and process figures the agent streams (orchestrator/host_proc.h), read for real:
// in the Linux suite from /proc, and as a Windows executable under Wine through the Win32 calls
// (host_proc_windows.cpp).
#include <doctest/doctest.h>

#include <cmath>

#include "common/cpu_time.h"
#include "common/self_exe.h"
#include "orchestrator/host_proc.h"

using namespace seatmark;
using namespace seatmark::orchestrator;

TEST_CASE("host: CPU per core, memory and this process's CPU time and resident memory") {
    const HostIdentity id = read_host_identity();
    CHECK(id.cpu_count >= 1);
    CHECK(id.mem_total_bytes > 0);
    CHECK_FALSE(id.hostname.empty());

    const CpuTimes a = read_cpu_times();
    REQUIRE(a.total.size() >= 2);  // the machine, then each core
    CHECK(a.total.size() == a.busy.size());
    const double t0 = process_cpu_seconds();
    while (process_cpu_seconds() - t0 < 0.2) {
    }  // busy: the next reading has something to show
    const CpuTimes b = read_cpu_times();
    const auto pct = cpu_percent(a, b);
    REQUIRE(pct.size() == a.total.size());
    for (double p : pct) {
        CHECK(p >= 0);
        CHECK(p <= 100.0001);
    }
    CHECK(pct[0] > 0);

    const MemInfo m = read_meminfo();
    CHECK(m.total_bytes > 0);
    CHECK(m.available_bytes <= m.total_bytes);

    ProcessUsageReader reader;
    auto self = reader.read(pid_t(current_pid()));
    REQUIRE(self);
    CHECK(self->cpu_seconds >= 0.2 * 0.5);  // sanity: the spin above, at the clock's tick
    CHECK(self->rss_bytes > 1u << 20);
    CHECK_FALSE(reader.read(pid_t(0x7ffffff0)));  // no such process
    reader.sweep();
}
