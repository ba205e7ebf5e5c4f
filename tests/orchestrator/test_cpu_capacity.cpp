// The CPU capacity a run really has (orchestrator/host_proc.h, issue 29): the rule combining the
// online CPUs, the cpuset and a CFS quota, the /proc/self/cgroup parse, the allowed CPUs' busy
// share, and the real reading on this host.
#include <doctest/doctest.h>

#include <sched.h>
#include <unistd.h>

#include "orchestrator/host_proc.h"

using namespace seatmark::orchestrator;

TEST_CASE("CPU capacity: the smallest of online CPUs, cpuset and quota, saying where it came from") {
    auto all = cpu_capacity_from(2, {0, 1}, 0);
    CHECK(all.cpus == 2);
    CHECK_FALSE(all.limited());
    CHECK(all.note.empty());

    auto pinned = cpu_capacity_from(2, {0}, 0);
    CHECK(pinned.cpus == 1);
    CHECK(pinned.limited());
    CHECK_FALSE(pinned.quota_binds());
    CHECK(pinned.note == "1 CPU: cpuset 0 of 2 online");

    auto ranges = cpu_capacity_from(16, {7, 0, 1, 2, 5, 6}, 0);
    CHECK(ranges.cpus == 6);
    CHECK(ranges.note == "6 CPUs: cpuset 0-2,5-7 of 16 online");

    auto quota = cpu_capacity_from(8, {}, 1.5);  // affinity unknown: all 8
    CHECK(quota.cpus == doctest::Approx(1.5));
    CHECK(quota.quota_binds());
    CHECK(quota.note == "1.50 CPUs: CFS quota 1.50 CPUs of 8 online");

    auto both = cpu_capacity_from(8, {0, 1, 2, 3}, 2);  // the quota is the tighter
    CHECK(both.cpus == 2);
    CHECK(both.quota_binds());
    CHECK(both.note == "2 CPUs: cpuset 0-3 of 8 online, CFS quota 2.00 CPUs");

    auto loose = cpu_capacity_from(8, {0}, 4);  // the cpuset is the tighter: its cores' busy share
    CHECK(loose.cpus == 1);
    CHECK_FALSE(loose.quota_binds());
}

TEST_CASE("the cgroup of a controller in /proc/self/cgroup: v1 lines first, else the v2 line") {
    const char* v1 = "9:name=systemd:/\n4:cpu,cpuacct:/box/a\n3:cpuset:/pin\n0::/\n";
    CHECK(cgroup_path_of(v1, "cpu") == "/box/a");
    CHECK(cgroup_path_of(v1, "cpuacct") == "/box/a");
    CHECK(cgroup_path_of(v1, "cpuset") == "/pin");
    CHECK(cgroup_path_of(v1, "") == "/");           // the v2 line only
    CHECK(cgroup_path_of("0::/user.slice/x\n", "cpu") == "/user.slice/x");
    CHECK_FALSE(cgroup_path_of("5:memory:/m\n", "cpu"));
}

TEST_CASE("the busy share of the allowed CPUs comes from their own per-core lines") {
    CpuTimes a, b;
    a.busy = {0, 0, 0};
    a.total = {0, 0, 0};
    b.busy = {150, 100, 50};  // machine, core 0, core 1
    b.total = {200, 100, 100};
    CHECK(allowed_cpu_percent(a, b, {0}) == doctest::Approx(100));
    CHECK(allowed_cpu_percent(a, b, {1}) == doctest::Approx(50));
    CHECK(allowed_cpu_percent(a, b, {}) == doctest::Approx(75));
    CHECK(allowed_cpu_percent(a, b, {0, 1}) == doctest::Approx(75));
}

TEST_CASE("this process's capacity as read: never more than the online CPUs or its affinity") {
    const CpuCapacity c = read_cpu_capacity();
    CHECK(c.online == uint32_t(sysconf(_SC_NPROCESSORS_ONLN)));
    CHECK(c.cpus > 0);
    CHECK(c.cpus <= double(c.online));
    cpu_set_t set;
    CPU_ZERO(&set);
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
    CHECK(c.cpus <= double(CPU_COUNT(&set)));
    CHECK(c.limited() == !c.note.empty());
}
