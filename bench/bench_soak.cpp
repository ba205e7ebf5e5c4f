// The soak: one long step of synthetic sessions (no rendering: --synthetic-fps 60) driven by the
// orchestrator in this process, which samples itself every few seconds: resident memory, CPU,
// open descriptors and threads. Prints the first stretch of the measurement window (its first
// sixth, 5 min of 30) against its last, both taken from the window the database records (so the
// judgement after the window, which reads every frame back, is not mistaken for the steady
// state: it is printed on its own line), the database's size per hour, every frame accounted for
// (sent by BYE = stored + counted lost), and `seatmark report` on the result against its time
// goal (5 s for 10M frames, bench_report's goal, scaled by the frames stored).
// Exit 1 when a frame is unaccounted for, a session did not say BYE, descriptors or threads grew
// from the first stretch to the last, or the run left descriptors or threads open after it
// returned (a leak); memory and CPU are figures to read.
// Usage: bench_soak [MINUTES (30)] [SESSIONS (256)]     tests/integration/test_soak.cpp runs it short.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "core/plan.h"
#include "orchestrator/run_controller.h"
#include "store/store_reader.h"

using namespace seatmark;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Probe {
    double t_s = 0, rss_mb = 0, cpu_s = 0;
    int fds = 0, threads = 0;
    // Sorted: what each open descriptor names. Probes with the same descriptors share one list,
    // so the bench's own memory stays flat over a long soak (it is this process's RSS too).
    std::shared_ptr<const std::vector<std::string>> fd_targets;
};

Probe probe(double t_s, const Probe* previous) {
    Probe p;
    std::vector<std::string> targets;
    p.t_s = t_s;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) == 0) p.rss_mb = std::atof(line.c_str() + 6) / 1024.0;
        if (line.rfind("Threads:", 0) == 0) p.threads = std::atoi(line.c_str() + 8);
    }
    for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        targets.push_back(fs::read_symlink(e.path(), ec).string());
        ++p.fds;
    }
    std::sort(targets.begin(), targets.end());
    if (previous && previous->fd_targets && *previous->fd_targets == targets)
        p.fd_targets = previous->fd_targets;
    else
        p.fd_targets = std::make_shared<const std::vector<std::string>>(std::move(targets));
    std::ifstream stat("/proc/self/stat");
    std::string s((std::istreambuf_iterator<char>(stat)), {});
    std::istringstream rest(s.substr(s.rfind(')') + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
        if (i == 14) utime = std::stoull(field);
        if (i == 15) stime = std::stoull(field);
    }
    p.cpu_s = double(utime + stime) / double(sysconf(_SC_CLK_TCK));
    return p;
}

struct Stretch {
    double rss_mb = 0, cpu_share = 0;
    int fds_max = 0, threads_max = 0;
    const Probe* first = nullptr;
    const Probe* most_fds = nullptr;
};

// What `p` has open that `base` had not (the directory listing's own descriptor aside, which
// names a different number each time but the same folder), for a leak's name.
std::string new_descriptors(const Probe& base, const Probe& p) {
    std::vector<std::string> extra;
    std::set_difference(p.fd_targets->begin(), p.fd_targets->end(), base.fd_targets->begin(), base.fd_targets->end(),
                        std::back_inserter(extra));
    std::string out;
    for (size_t i = 0; i < extra.size() && i < 5; ++i) out += (i ? ", " : "") + extra[i];
    if (extra.size() > 5) out += ", ... (" + std::to_string(extra.size()) + ")";
    return out.empty() ? "none" : out;
}

// Averages over the probes in [from_s, to_s); CPU as a share of one core between the ends.
Stretch stretch(const std::vector<Probe>& ps, double from_s, double to_s) {
    Stretch st;
    const Probe* first = nullptr;
    const Probe* last = nullptr;
    int n = 0;
    for (const auto& p : ps)
        if (p.t_s >= from_s && p.t_s < to_s) {
            if (!first) first = &p;
            last = &p;
            st.rss_mb += p.rss_mb;
            if (!st.most_fds || p.fds > st.most_fds->fds) st.most_fds = &p;
            st.fds_max = std::max(st.fds_max, p.fds);
            st.threads_max = std::max(st.threads_max, p.threads);
            ++n;
        }
    if (n) st.rss_mb /= n;
    st.first = first;
    if (first && last && last->t_s > first->t_s) st.cpu_share = (last->cpu_s - first->cpu_s) / (last->t_s - first->t_s);
    return st;
}

std::string exe_dir() { return fs::read_symlink("/proc/self/exe").parent_path().string(); }

double run_report(const std::string& db, const std::string& out) {
    const std::string bin = exe_dir() + "/../seatmark";
    auto t = Clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::execl(bin.c_str(), bin.c_str(), "report", db.c_str(), "--out", out.c_str(), "--quiet", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "bench_soak: seatmark report failed (status %d)\n", status);
        return -1;
    }
    return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
    const double minutes = argc > 1 ? std::atof(argv[1]) : 30;
    const int sessions = argc > 2 ? std::atoi(argv[2]) : 256;
    if (minutes <= 0 || sessions <= 0) {
        std::fprintf(stderr, "usage: bench_soak [MINUTES (30)] [SESSIONS (256)]   e.g. bench_soak 2 32\n");
        return 2;
    }
    const double window_s = minutes * 60;
    const auto dir = fs::temp_directory_path() / ("seatmark-bench-soak-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string text = "name = \"bench-soak\"\n[run]\nheartbeat_timeout = \"30s\"\n[steps]\nlist = [" +
                             std::to_string(sessions) + "]\nsettle = \"5s\"\nwindow = \"" + std::to_string(int64_t(window_s * 1000)) +
                             "ms\"\n[[mix]]\nprofile = \"ci-tiny\"\n[sla]\nlatency_p95_ms = 1000\n";
    auto plan = core::parse_plan(text, "soak plan");
    orchestrator::RunOptions o;
    o.db_path = (dir / "soak.db").string();
    o.quiet = true;
    o.extra_session_args = {"--synthetic-fps", "60"};
    o.session_exe = (fs::path(exe_dir()).parent_path() / "seatmark-session").string();
    std::printf("bench_soak: %d synthetic sessions at 60 FPS for %.1f min ...\n", sessions, minutes);
    std::fflush(stdout);

    std::vector<Probe> probes;
    std::atomic<bool> done{false};
    orchestrator::RunOutcome r;
    const auto t0 = Clock::now();
    const int64_t t0_ns = now_ns();  // the store's clock (common/clock.h), to place the window
    const Probe before = probe(0, nullptr);
    std::thread runner([&] {
        r = orchestrator::run_plan(plan, o);
        done = true;
    });
    const double every_s = std::clamp(window_s / 120, 1.0, 10.0);
    while (!done) {
        const double t = std::chrono::duration<double>(Clock::now() - t0).count();
        probes.push_back(probe(t, probes.empty() ? nullptr : &probes.back()));
        for (double waited = 0; waited < every_s && !done; waited += 0.1) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    runner.join();
    const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    const Probe after = probe(wall_s, nullptr);

    // The stretches are the first and last sixth of the window the run measured, as recorded.
    store::StoreReader db(o.db_path);
    double w0 = wall_s, w1 = 0;
    for (const auto& st : db.steps())
        if (st.window_start_ns && st.window_end_ns) {
            w0 = std::min(w0, double(*st.window_start_ns - t0_ns) * 1e-9);
            w1 = std::max(w1, double(*st.window_end_ns - t0_ns) * 1e-9);
        }
    if (w1 <= w0) {
        std::fprintf(stderr, "bench_soak: the run recorded no measurement window (status %s)\n", r.status.c_str());
        w0 = 0;
        w1 = wall_s;
    }
    const double part = std::max((w1 - w0) / 6, 10.0);
    const Stretch a = stretch(probes, w0, w0 + part), b = stretch(probes, w1 - part, w1), tail = stretch(probes, w1, wall_s + 1);
    int64_t sent = 0, stored = 0, lost = 0, without_bye = 0;
    for (const auto& s : db.sessions()) {
        const int64_t n = int64_t(db.frame_count(s.id));
        stored += n;
        lost += s.frames_lost;
        if (s.frames_sent)
            sent += *s.frames_sent;
        else
            ++without_bye;
    }
    const int64_t unaccounted = sent - stored - lost;
    uint64_t db_bytes = 0;
    for (const char* sfx : {"", "-wal"}) {
        std::error_code ec;
        const auto n = fs::file_size(o.db_path + sfx, ec);
        if (!ec) db_bytes += n;
    }
    const double report_s = run_report(o.db_path, (dir / "report").string());
    const double report_goal_s = 5.0 * double(stored) / 10e6;

    std::printf("  run %s in %.0f s wall; %lld frames stored, %lld counted lost\n", r.status.c_str(), wall_s, (long long)stored,
                (long long)lost);
    std::printf("  frames unaccounted (sent - stored - lost)  %lld   (sessions without BYE: %lld; goal 0 and 0)\n",
                (long long)unaccounted, (long long)without_bye);
    // The judgement runs on the judge's thread; the loop must not stall meanwhile (issue 16).
    std::printf("  event loop             longest pass %.2f s before the stop, %.2f s overall (%.0f s into the run of %.0f s)\n"
                "                         longest judgement %.2f s (off the loop; sessions give up sending after 10 s unread)\n",
                r.longest_running_pass_s, r.longest_loop_pass_s, r.longest_loop_pass_at_s, wall_s, r.longest_judge_s);
    std::printf("  orchestrator           first %4.0f s   last %4.0f s of the window (%.0f-%.0f s into the run)\n", part, part, w0, w1);
    std::printf("    RSS (MB, mean)       %8.1f   %8.1f   (%+.1f %%)\n", a.rss_mb, b.rss_mb, 100 * (b.rss_mb - a.rss_mb) / a.rss_mb);
    std::printf("    RSS by sixth (MB)    ");
    for (int k = 0; k < 6; ++k) std::printf(" %.1f", stretch(probes, w0 + k * (w1 - w0) / 6, w0 + (k + 1) * (w1 - w0) / 6).rss_mb);
    std::printf("\n");
    std::printf("    CPU (share of a core)%8.3f   %8.3f\n", a.cpu_share, b.cpu_share);
    std::printf("    descriptors (max)    %8d   %8d\n", a.fds_max, b.fds_max);
    std::printf("    threads (max)        %8d   %8d\n", a.threads_max, b.threads_max);
    if (tail.first)
        std::printf("  after the window       %.0f s (judgement, stop, final commit): CPU %.3f of a core, descriptors max %d, threads max %d\n",
                    wall_s - w1, tail.cpu_share, tail.fds_max, tail.threads_max);
    else
        std::printf("  after the window       %.1f s (judgement, stop, final commit): too short for a probe\n", wall_s - w1);
    if (a.first && b.most_fds && b.fds_max > a.fds_max)
        std::printf("    descriptors the last stretch had open that the first had not: %s\n", new_descriptors(*a.first, *b.most_fds).c_str());
    if (a.first && tail.most_fds && tail.fds_max > a.fds_max)
        std::printf("    descriptors open after the window that the first stretch had not: %s\n", new_descriptors(*a.first, *tail.most_fds).c_str());
    std::printf("  this process           before the run %d descriptors, %d threads; after it returned %d, %d (goal: no more)\n",
                before.fds, before.threads, after.fds, after.threads);
    std::printf("  database               %.1f MB, %.0f MB per hour of run\n", double(db_bytes) / 1e6,
                double(db_bytes) / 1e6 / (wall_s / 3600));
    std::printf("  seatmark report        %.2f s for %lld frames (goal %.2f s: 5 s per 10M frames)\n", report_s, (long long)stored,
                std::max(report_goal_s, 0.5));
    fs::remove_all(dir);
    const bool ok = unaccounted == 0 && without_bye == 0 && b.fds_max <= a.fds_max && b.threads_max <= a.threads_max &&
                    after.fds <= before.fds && after.threads <= before.threads &&
                    report_s >= 0 && r.status == "finished";
    if (after.fds > before.fds) std::printf("    left open after the run: %s\n", new_descriptors(before, after).c_str());
    if (!ok) std::printf("bench_soak: FAILED (see the figures above)\n");
    return ok ? 0 : 1;
}
