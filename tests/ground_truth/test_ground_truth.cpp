// Ground truth (issue 29 items 1 and 3): a real `seatmark run` inside a cgroup v1 cpuset of one
// CPU, its sessions synthetic with a known CPU cost. Each session spends 20 ms of CPU per 50 ms
// frame (--synthetic-cpu-ms 20 --synthetic-fps 20) = 0.4 CPU, so 1 CPU holds 2 and not 3 by
// construction. The report must find that density (within 1), name the CPU as what ran out, judge
// its busy share against the 1 CPU the run had (near 100 %, not the ~50 % of the 2-CPU machine
// the old code reported) and estimate room for about 2-3 sessions, not 6. The same truth again
// under a CFS quota of 1 CPU (cgroup v1 cpu.cfs_quota_us) with every CPU allowed. Needs root and
// writable cgroup v1 controllers; otherwise Skipped with the reason.
#include <doctest/doctest.h>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "report/analysis.h"
#include "tests/support/process.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

// A cpuset cgroup of one CPU, removed when the test ends (its processes have exited by then).
struct Cpuset {
    std::string dir, why_not;
    int cpu = -1;
    Cpuset() {
        const std::string root = "/sys/fs/cgroup/cpuset";
        if (geteuid() != 0) { why_not = "needs root to make a cpuset cgroup"; return; }
        if (::access((root + "/cpuset.cpus").c_str(), W_OK) != 0) { why_not = "no writable cgroup v1 cpuset at " + root; return; }
        if (sysconf(_SC_NPROCESSORS_ONLN) < 2) { why_not = "needs at least 2 online CPUs to pin a run to fewer"; return; }
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) != 0) { why_not = "sched_getaffinity failed"; return; }
        for (int c = 0; c < CPU_SETSIZE && cpu < 0; ++c)
            if (CPU_ISSET(c, &set)) cpu = c;
        const std::string mems = read_file(root + "/cpuset.mems");
        const std::string mem = mems.substr(0, mems.find_first_of(",-\n"));
        dir = root + "/seatmark-gt-" + std::to_string(getpid());
        std::error_code ec;
        if (!std::filesystem::create_directory(dir, ec)) { why_not = "cannot create " + dir + ": " + ec.message(); dir.clear(); return; }
        try {
            write_file(dir + "/cpuset.cpus", std::to_string(cpu) + "\n");
            write_file(dir + "/cpuset.mems", (mem.empty() ? std::string("0") : mem) + "\n");
        } catch (const std::exception& e) {
            why_not = std::string("cannot configure ") + dir + ": " + e.what();
        }
        // The kernel refuses a bad value when the file closes: read it back.
        if (why_not.empty() && read_file(dir + "/cpuset.cpus").rfind(std::to_string(cpu), 0) != 0)
            why_not = "the kernel did not take cpuset.cpus " + std::to_string(cpu) + " in " + dir;
    }
    ~Cpuset() {
        if (!dir.empty()) ::rmdir(dir.c_str());
    }
};

// A cgroup v1 cpu (and cpuacct, where mounted apart) group with a CFS quota of 1 CPU.
struct Quota {
    std::vector<std::string> dirs;  // the cpu group first; each gets the run's pid
    std::string why_not;
    Quota() {
        if (geteuid() != 0) { why_not = "needs root to make a cpu cgroup"; return; }
        if (sysconf(_SC_NPROCESSORS_ONLN) < 2) { why_not = "needs at least 2 online CPUs to limit a run to fewer"; return; }
        namespace fs = std::filesystem;
        const std::string name = "/seatmark-gt-quota-" + std::to_string(getpid());
        std::error_code ec;
        const fs::path cpu = fs::canonical("/sys/fs/cgroup/cpu", ec);
        if (ec || ::access((cpu.string() + "/cpu.cfs_quota_us").c_str(), W_OK) != 0) {
            why_not = "no writable cgroup v1 cpu controller at /sys/fs/cgroup/cpu";
            return;
        }
        std::vector<std::string> want = {cpu.string() + name};
        if (const fs::path acct = fs::canonical("/sys/fs/cgroup/cpuacct", ec); !ec && acct != cpu) want.push_back(acct.string() + name);
        for (const auto& d : want) {
            if (!fs::create_directory(d, ec)) { why_not = "cannot create " + d + ": " + ec.message(); return; }
            dirs.push_back(d);
        }
        try {
            write_file(dirs[0] + "/cpu.cfs_period_us", "50000\n");
            write_file(dirs[0] + "/cpu.cfs_quota_us", "50000\n");
            // The group's weight against its siblings (nice only orders tasks within one group):
            // work elsewhere on the machine does not take the CPU the quota grants.
            write_file(dirs[0] + "/cpu.shares", "262144\n");
        } catch (const std::exception& e) {
            why_not = std::string("cannot set the quota in ") + dirs[0] + ": " + e.what();
        }
        if (why_not.empty() && read_file(dirs[0] + "/cpu.cfs_quota_us").rfind("50000", 0) != 0)
            why_not = "the kernel did not take cpu.cfs_quota_us 50000 in " + dirs[0];
    }
    ~Quota() {
        for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) ::rmdir(it->c_str());
    }
};

// N in "... room for about N such sessions ..." of an attribution's context; -1 when absent.
double room_of(const core::Attribution& t) {
    for (const auto& c : t.context)
        if (auto at = c.find("room for about "); at != std::string::npos) return std::strtod(c.c_str() + at + 15, nullptr);
    return -1;
}

// Runs the plan with its pid in each of tasks_dirs, then checks the constructed truth: 2 sessions
// of 0.4 CPU fit on 1 CPU, judged against the capacity named by note.
void check_one_cpu_run(const std::vector<std::string>& tasks_dirs, const std::string& note) {
    TempDir dir;
    // Only the p95 interval judges (the other SLA terms are opened wide): 2 sessions of 0.4 CPU
    // keep their 50 ms frames; 3 need 1.2 CPU and stretch them to about 60 ms and more. 60 ms
    // rather than 55: another tenant's load on the shared CPU pushed 1 session's p95 to 56 ms.
    write_file(dir.file("plan.toml"), "name = \"ground-truth-1-cpu\"\n[run]\nallow_software = true\nstop = \"max\"\n"
                                      "[steps]\nlist = [1, 2, 3, 4]\nsettle = \"1s\"\nwindow = \"3s\"\n"
                                      "[[mix]]\nprofile = \"ci-tiny\"\n"
                                      "[sla]\np95_interval_ms = 60\nlow1_fps = 1\nlatency_p95_ms = 10000\nstutter_pct = 100\n");
    std::string cmd;
    for (const auto& d : tasks_dirs) cmd += "echo $$ > " + d + "/tasks && ";
    // At nice -10 (root): other work on the machine at the default priority (a parallel build,
    // other tests) takes about a tenth of a contested CPU instead of half of it, so the constructed
    // capacity is the run's. Foreign load itself is issue 29 item 2's guard, not this truth.
    cmd += std::string("exec nice -n -10 ") + SEATMARK_BIN + " run " + dir.file("plan.toml") + " --db " + dir.file("run.db") +
           " --quiet --session-args '--synthetic-cpu-ms 20 --synthetic-fps 20'";
    auto r = run_process({"/bin/sh", "-c", cmd}, 90);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);

    report::RunAnalysis a = report::analyze(dir.file("run.db"));
    REQUIRE(!a.hosts.empty());
    // The host row says what the run could use, and where that came from.
    REQUIRE(a.hosts.front().cpu_capacity);
    CHECK(*a.hosts.front().cpu_capacity == doctest::Approx(1.0));
    CHECK(a.hosts.front().cpu_capacity_note == note);
    // Truth 2, within 1.
    INFO("max density " << a.max_density);
    CHECK(a.max_density >= 1);
    CHECK(a.max_density <= 3);
    REQUIRE(a.bottleneck_step);
    const auto& s = a.steps[*a.bottleneck_step];
    CHECK(s.target > a.max_density);  // the first failing step
    const auto& t = s.attribution;
    INFO(t.headline);
    REQUIRE(t.binding);
    const std::string b = t.resources[*t.binding].name;
    CHECK((b == "host CPU" || b == "CPU run queue"));
    // Busy share of the 1 CPU the run had: sessions wanting 1.2+ CPU fill it (the old code said
    // 46-48 %: both CPUs of the machine, one of them idle to the run).
    bool judged = false;
    for (const auto& x : t.resources)
        if (x.name == "host CPU") {
            judged = true;
            CHECK(x.busy_pct >= 80);
            CHECK(x.figure.find("of 1 CPU (") != std::string::npos);
        }
    CHECK(judged);
    // Room from the sessions' own CPU against 1 CPU: 1 / 0.4 = 2.5 at full speed, up to 1 / (1/3)
    // = 3 once 3 sessions share it; the old code said 6-9 (2 CPUs).
    const double room = room_of(t);
    CHECK(room >= 1.5);
    CHECK(room <= 3.5);
}

}  // namespace

TEST_CASE("ground truth: a run pinned to 1 CPU of a cpuset holds 2 sessions of 0.4 CPU, judged against that 1 CPU") {
    Cpuset cg;
    if (!cg.why_not.empty()) SEATMARK_SKIP(cg.why_not);
    check_one_cpu_run({cg.dir}, "1 CPU: cpuset " + std::to_string(cg.cpu) + " of " +
                                    std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " online");
}

TEST_CASE("ground truth: a run under a CFS quota of 1 CPU holds 2 sessions of 0.4 CPU, judged against that quota") {
    Quota q;
    if (!q.why_not.empty()) SEATMARK_SKIP(q.why_not);
    // Every CPU allowed: only the quota limits.
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2) SEATMARK_SKIP("this process is pinned to 1 CPU already");
    check_one_cpu_run(q.dirs, "1 CPU: CFS quota 1.00 CPUs of " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " online");
}
