// A pool run's costs, each against its peer measured in the same run:
//   1. coordination: wall time per sync point (settle, window open, window close) beyond the
//      coordinator's designed go lead, and the window-open skew across ranks (each rank's opening
//      instant put in rank 0's clock with the measured offsets), against one MPI_Barrier round trip;
//   2. merge: `seatmark merge` of H synthetic host databases (MB/s) against `cp` of the same files;
//   3. rank 0's CPU (its orchestrator process, over the measurement window) while it coordinates
//      RANKS ranks of SESSIONS synthetic sessions each (--synthetic-fps 60), against one core.
// Usage: bench_pool [RANKS] [SESSIONS_PER_RANK] [WINDOW]   (4, 64, "20s" by default)
// Internal: bench_pool --coord-worker STEPS | --cpu-worker SESSIONS WINDOW DIR  (run under mpirun)
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "core/plan.h"
#include "orchestrator/pool_coordinator.h"
#include "orchestrator/pool_run.h"
#include "orchestrator/pool_startup.h"
#include "store/merge.h"
#include "store/store_writer.h"

namespace fs = std::filesystem;
using namespace seatmark;
using namespace seatmark::orchestrator;

namespace {

// What the coordinator waits on purpose before every go (pool_coordinator.cpp's go lead).
constexpr double go_lead_ms = 100;

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }
std::string build_dir() { return fs::read_symlink("/proc/self/exe").parent_path().parent_path().string(); }

std::string plan_text(int sessions, const std::string& window) {
    return "name = \"bench-pool\"\n[run]\nheartbeat_timeout = \"30s\"\nstop = \"max\"\n[steps]\nlist = [" +
           std::to_string(sessions) + "]\nsettle = \"3s\"\nwindow = \"" + window +
           "\"\n[[mix]]\nprofile = \"ci-tiny\"\n[sla]\nlatency_p95_ms = 1000\n[pool]\nplacement = \"per-host\"\n"
           "sync_timeout = \"60s\"\n";
}

std::string mpirun(int ranks, const std::string& args) {
    std::string cmd = "OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl=self,vader mpirun -np " +
                      std::to_string(ranks) + " --oversubscribe";
    if (geteuid() == 0) cmd += " --allow-run-as-root";
    return cmd + " " + self_exe() + " " + args;
}

std::string run_capture(const std::string& cmd) {
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    while (p && fgets(buf, sizeof buf, p)) out += buf;
    if (!p || pclose(p) != 0) {
        std::fprintf(stderr, "bench_pool: failed: %s\n%s", cmd.c_str(), out.c_str());
        std::exit(1);
    }
    return out;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int coord_worker(int steps) {
    PoolComm comm(nullptr, nullptr);
    core::Plan plan = core::parse_plan(plan_text(1, "1s"), "bench plan");
    PoolView view = pool_startup(comm, plan, "b" + std::to_string(comm.rank()), "/nonexistent/bench-pool.db");
    // One MPI_Barrier round trip, the peer.
    for (int i = 0; i < 50; ++i) MPI_Barrier(MPI_COMM_WORLD);
    const int barriers = 2000;
    const int64_t b0 = now_ns();
    for (int i = 0; i < barriers; ++i) MPI_Barrier(MPI_COMM_WORLD);
    const double barrier_us = double(now_ns() - b0) / barriers / 1e3;

    MpiCoordinator coord(comm, view, [](SyncPoint) { return 60.0; });
    std::vector<double> beyond_ms;
    for (int s = 0; s < steps; ++s)
        for (SyncPoint p : {SyncPoint::settle, SyncPoint::window_open, SyncPoint::window_close}) {
            bool done = false;
            const int64_t t0 = now_ns();
            coord.arrive({p, static_cast<size_t>(s), 0, 1, ""}, [&](const SyncResult&) { done = true; });
            while (!done) {
                coord.poll();
                if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            beyond_ms.push_back(double(now_ns() - t0) / 1e6 - go_lead_ms);
        }
    // Every rank's opening instants, in rank 0's clock.
    std::vector<int64_t> mine;
    for (const auto& o : coord.opened()) mine.push_back(o.at_ns + view.members[size_t(comm.rank())].offset_ns);
    const int n = static_cast<int>(mine.size());
    std::vector<int64_t> all(size_t(n) * size_t(comm.size()));
    MPI_Gather(mine.data(), n, MPI_INT64_T, all.data(), n, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (comm.rank() == 0) {
        std::vector<double> skew_us;
        int64_t unc = 0;
        for (const auto& m : view.members) unc = std::max(unc, m.uncertainty_ns);
        for (int i = 0; i < n; ++i) {
            int64_t lo = all[size_t(i)], hi = lo;
            for (int k = 1; k < comm.size(); ++k) {
                lo = std::min(lo, all[size_t(k * n + i)]);
                hi = std::max(hi, all[size_t(k * n + i)]);
            }
            skew_us.push_back(double(hi - lo) / 1e3);
        }
        std::printf("barrier_us %.3f\nbeyond_ms_median %.3f\nbeyond_ms_max %.3f\nskew_us_median %.3f\nskew_us_max %.3f\n"
                    "offset_uncertainty_us %.3f\nsyncs %d\n",
                    barrier_us, median(beyond_ms), *std::max_element(beyond_ms.begin(), beyond_ms.end()),
                    median(skew_us), *std::max_element(skew_us.begin(), skew_us.end()), double(unc) / 1e3, n);
    }
    return 0;
}

int cpu_worker(int sessions, const std::string& window, const std::string& dir) {
    core::Plan plan = core::parse_plan(plan_text(sessions, window), "bench plan");
    PoolArgs a;
    a.host_name = "b{rank}";
    a.db = (fs::path(dir) / "pool.db").string();
    a.quiet = true;
    a.listen = "off";
    a.extra_session_args = {"--synthetic-fps", "60"};
    a.session_exe = (fs::path(build_dir()) / "seatmark-session").string();
    RunOutcome r;
    a.outcome = &r;
    const int rc = run_pool_rank(plan, a);
    if (r.measured_wall_s > 0 && std::getenv("OMPI_COMM_WORLD_RANK") && std::string(std::getenv("OMPI_COMM_WORLD_RANK")) == "0")
        std::printf("rank0_cpu_pct %.3f\nwindow_s %.3f\nframes_stored %llu\nstatus %s\n",
                    r.measured_cpu_s / r.measured_wall_s * 100, r.measured_wall_s,
                    static_cast<unsigned long long>(r.frames_stored), r.status.c_str());
    std::fflush(stdout);
    return rc;
}

double value(const std::string& out, const std::string& key) {
    auto at = out.find(key + " ");
    return at == std::string::npos ? -1 : std::atof(out.c_str() + at + key.size() + 1);
}

// H host databases of one pool run: `frames` frames for each of `sessions` sessions per host.
std::vector<std::string> synthetic_hosts(const std::string& dir, int hosts, int sessions, int frames) {
    std::vector<std::string> files;
    for (int h = 0; h < hosts; ++h) {
        const std::string name = "h" + std::to_string(h), path = (fs::path(dir) / ("pool." + name + ".db")).string();
        auto w = store::StoreWriter::open(path);
        store::RunInfo ri;
        ri.plan_text = plan_text(sessions, "20s");
        ri.host = name;
        ri.pool_id = "benchpool";
        w.begin_run(ri);
        for (int k = 0; k < hosts; ++k) {
            store::HostInfo hi;
            hi.hostname = "h" + std::to_string(k);
            hi.rank = k;
            hi.role = std::string(k == h ? (h == 0 ? store::role_orchestrator : store::role_rank) : store::role_rank);
            if (k != h) hi.clock_uncertainty_ns = 1000;
            w.add_host(hi);
        }
        const int64_t t0 = now_ns();
        w.begin_step({.idx = 0, .repeat = 0, .target_sessions = sessions, .started_ns = t0, .pool_hosts = hosts});
        for (int s = 0; s < sessions; ++s) {
            const int id = h * sessions + s;
            w.add_session({id, "ci-tiny", 1000 + id, {}, t0, ""});
            std::vector<FrameRecord> f(static_cast<size_t>(frames));
            for (int i = 0; i < frames; ++i) {
                f[size_t(i)].seq = uint64_t(i);
                f[size_t(i)].t_begin_ns = t0 + int64_t(i) * 16'666'667;
                f[size_t(i)].cpu_ns = 2'000'000;
                f[size_t(i)].interval_ns = i ? 16'666'667 : -1;
                f[size_t(i)].t_present_ns = f[size_t(i)].t_begin_ns + 5'000'000;
            }
            w.add_frames(id, std::move(f));
        }
        w.end_step({0, 0, t0, t0 + int64_t(frames) * 16'666'667, t0 + int64_t(frames) * 16'666'667, "pass", ""});
        w.end_run(store::RunStatus::finished);
        w.finish();
        files.push_back(path);
    }
    return files;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 2 && std::string(argv[1]) == "--coord-worker") return coord_worker(std::atoi(argv[2]));
    if (argc > 4 && std::string(argv[1]) == "--cpu-worker") return cpu_worker(std::atoi(argv[2]), argv[3], argv[4]);
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 4;
    const int sessions = argc > 2 ? std::atoi(argv[2]) : 64;
    const std::string window = argc > 3 ? argv[3] : "20s";
    const fs::path dir = fs::temp_directory_path() / "seatmark-bench-pool";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::printf("bench_pool: %d ranks on this machine (%u cores), %d synthetic sessions per rank\n", ranks,
                std::thread::hardware_concurrency(), sessions);

    // 1. Coordination against MPI_Barrier.
    const std::string c = run_capture(mpirun(ranks, "--coord-worker 20"));
    const double barrier_us = value(c, "barrier_us");
    std::printf("coordination (%d ranks, %g sync points):\n", ranks, value(c, "syncs"));
    std::printf("  one MPI_Barrier round trip          %10.1f us (the peer)\n", barrier_us);
    std::printf("  per sync point beyond the %3.0f ms lead %8.1f us median, %.1f us max  (= %.1f x / %.1f x a barrier)\n",
                go_lead_ms, value(c, "beyond_ms_median") * 1e3, value(c, "beyond_ms_max") * 1e3,
                value(c, "beyond_ms_median") * 1e3 / barrier_us, value(c, "beyond_ms_max") * 1e3 / barrier_us);
    std::printf("  per step (3 sync points)            %10.1f us beyond the leads\n", 3 * value(c, "beyond_ms_median") * 1e3);
    std::printf("  window-open skew across ranks       %10.1f us median, %.1f us max  (= %.1f x a barrier; offsets +- %.1f us)\n",
                value(c, "skew_us_median"), value(c, "skew_us_max"), value(c, "skew_us_median") / barrier_us,
                value(c, "offset_uncertainty_us"));

    // 2. Merge against cp.
    const int hosts = 4, per_host = 16, frames = 5000;
    auto files = synthetic_hosts(dir.string(), hosts, per_host, frames);
    uint64_t bytes = 0;
    std::string list;
    for (const auto& f : files) {
        bytes += fs::file_size(f);
        list += " " + f;
    }
    fs::create_directories(dir / "copies");
    auto t = std::chrono::steady_clock::now();
    run_capture("cp" + list + " " + (dir / "copies").string());
    const double cp_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    t = std::chrono::steady_clock::now();
    store::merge_databases((dir / "merged.db").string(), files);
    const double merge_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    const double mb = double(bytes) / 1e6;
    std::printf("merge of %d host databases (%.1f MB, %d frames):\n", hosts, mb, hosts * per_host * frames);
    std::printf("  cp of the same files                %10.1f MB/s (the peer)\n", mb / cp_s);
    std::printf("  seatmark merge                      %10.1f MB/s (%.3f s; %.1f x slower than cp, %.0f frames/s)\n",
                mb / merge_s, merge_s, merge_s / cp_s, double(hosts * per_host * frames) / merge_s);

    // 3. Rank 0's CPU while coordinating.
    const std::string r = run_capture(mpirun(ranks, "--cpu-worker " + std::to_string(sessions) + " " + window + " " + dir.string()));
    std::printf("rank 0 coordinating %d ranks x %d synthetic sessions (60 FPS), status %s:\n", ranks, sessions,
                r.find("status finished") != std::string::npos ? "finished" : "NOT finished");
    std::printf("  rank 0's orchestrator CPU / one core %9.2f %%  over the %.1f s window (%g frames stored by rank 0)\n",
                value(r, "rank0_cpu_pct"), value(r, "window_s"), value(r, "frames_stored"));
    fs::remove_all(dir);
    return 0;
}
