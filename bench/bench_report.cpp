// How fast `seatmark report` analyses a large run, against the sqlite3 CLI computing a small
// part of the same answer in the same run.
//
//  (a) report: analyze() + write_report() into a temporary folder, the code path of
//      `seatmark report` (every frame read, every step and window judged with the
//      orchestrator's judge, heat map, charts, HTML/Markdown/CSV/JSON written).
//  (b) peer: /usr/bin/sqlite3 computing only the per-step, per-session nearest-rank p95 of
//      frame interval over each step's measurement windows, with window functions
//      (ROW_NUMBER() and COUNT() OVER (PARTITION BY step, session ORDER BY interval)).
// Both read the same generated frames: 30 synthetic sessions ramped in 6 steps of 5..30
// sessions (~47 min each), two measurement windows per step, think pauses, 1 % slow frames,
// ~10M frames in all, and the host and per-session samples the orchestrator takes every 0.5 s
// (~1.9M rows). (a) reads the run database; schema 4 packs frames in blocks that SQL cannot
// decode, so (b) reads a copy of its steps and frames as rows (one row per frame, as schema 3
// stored them; written once beside it, not timed). The p95 figures are compared pair by pair.
// Prints both times and the ratio (b)/(a). Goals (issue "report"): (a) under 5 s, ratio >= 5.
// Usage: bench_report [FRAMES] [--db PATH (reuse or create it; kept)]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "store/store_reader.h"
#include "store/store_writer.h"
#include "report/analysis.h"
#include "report/write_report.h"

using namespace seatmark;
using namespace seatmark::store;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds (user + system) of this process or of its waited-for children.
double cpu_seconds(int who) {
    rusage u{};
    getrusage(who, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

struct Rng {
    uint64_t s = 88172645463325252ull;
    double u() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return double(s >> 11) * (1.0 / 9007199254740992.0);
    }
};

const std::vector<int> steps = {5, 10, 15, 20, 25, 30};
constexpr int sessions_n = 30;
constexpr double active_s = 5, pause_s = 0.8, settle_s = 30;

// Frames per second of a session while `n` sessions share the host: slower as load grows.
double rate(int n) { return 60.0 / (1.0 + 0.035 * (n - 5)); }

// Writes the run with StoreWriter in time order (1 s batches per session, as sessions send them).
uint64_t generate(const std::string& path, uint64_t target_frames) {
    double per_step_rate = 0;
    for (int n : steps) per_step_rate += n * rate(n);
    // Think pauses, and the frame that overruns each into the pause, cost about 1.2 % more: add it.
    const double step_s = 1.012 * double(target_frames) / (per_step_rate * active_s / (active_s + pause_s));
    const int64_t step_ns = int64_t(step_s * 1e9), window_ns = int64_t((step_s - settle_s) / 2 * 1e9);

    StoreOptions o;
    o.overwrite = true;
    StoreWriter w = StoreWriter::open(path, o);
    RunInfo ri;
    ri.plan_text = "name = \"bench\"\n[steps]\nlist = [5, 10, 15, 20, 25, 30]\nsettle = \"30s\"\nrepeats = 2\n"
                   "[[mix]]\nprofile = \"ci-tiny\"\n";
    ri.tool_version = "bench_report";
    ri.host = "bench-host";
    const int64_t t0 = 1'000'000'000'000;
    ri.mono_origin_ns = t0;
    ri.started_unix_ns = 1'700'000'000'000'000'000;
    w.begin_run(ri);
    w.add_host({"bench-host", "bench CPU", 2, int64_t(8) << 30, "Debian 12", "6.1", "", "", ""});

    struct S {
        int64_t t = 0, last = 0, pause_at = 0;
        uint64_t seq = 0, count = 0;
        uint32_t stretch = 0;
        bool stretch_start = true;
    };
    std::vector<S> ss(sessions_n);
    Rng rng;
    uint64_t total = 0;
    for (size_t k = 0; k < steps.size(); ++k) {
        const int n = steps[k];
        const int64_t st = t0 + int64_t(k) * step_ns;
        for (int i = k ? steps[k - 1] : 0; i < n; ++i) {
            SessionInfo si;
            si.id = i;
            si.profile = "ci-tiny";
            si.pid = 1000 + i;
            si.started_ns = st;
            si.device = {"llvmpipe (LLVM 15.0.6, 256 bits)", "cpu", "llvmpipe", "Mesa 22.3.6", true};
            w.add_session(si);
            ss[size_t(i)].t = st + 100'000'000;
            ss[size_t(i)].pause_at = ss[size_t(i)].t + int64_t(active_s * 1e9);
        }
        const double mean_ns = 1e9 / rate(n);
        for (int64_t c = st; c < st + step_ns; c += 1'000'000'000) {
            const int64_t ce = std::min(c + 1'000'000'000, st + step_ns);
            for (int i = 0; i < n; ++i) {
                S& s = ss[size_t(i)];
                std::vector<FrameRecord> batch;
                batch.reserve(96);
                while (s.t < ce) {
                    FrameRecord f;
                    f.seq = s.seq++;
                    f.t_begin_ns = s.t;
                    f.cpu_ns = 900'000 + int64_t(rng.u() * 200'000);
                    f.gpu_ns = 3'000'000 + int64_t(rng.u() * 1'000'000);
                    f.interval_ns = s.stretch_start ? -1 : s.t - s.last;
                    f.latency_ns = f.seq % 8 == 0 ? int64_t(25e6 + rng.u() * 20e6) : -1;
                    f.stretch = s.stretch;
                    f.mode = uint16_t((f.seq / 3000) % 6);
                    f.flags = f.seq % 8 == 0 ? 1 : 0;
                    batch.push_back(f);
                    s.stretch_start = false;
                    s.last = s.t;
                    double iv = mean_ns * (0.85 + 0.3 * rng.u());
                    if (rng.u() < 0.01) iv *= 2.2;  // an occasional slow frame
                    s.t += int64_t(iv);
                    if (s.t > s.pause_at) {  // think pause
                        s.t += int64_t(pause_s * 1e9);
                        s.pause_at = s.t + int64_t(active_s * 1e9);
                        ++s.stretch;
                        s.stretch_start = true;
                    }
                }
                s.count += batch.size();
                total += batch.size();
                if (!batch.empty()) w.add_frames(i, std::move(batch));
            }
            std::vector<SampleRow> smp;
            // What the orchestrator samples every 0.5 s: host CPU (and per core), memory, load;
            // per session CPU, resident memory and GPU share (process CPU time on lavapipe).
            for (int64_t t = c; t < ce; t += 500'000'000) {
                const double cpu = std::min(100.0, 20.0 + 3.0 * n + rng.u() * 5);
                smp.push_back({t, std::nullopt, "proc", "host_cpu_pct", cpu});
                smp.push_back({t, std::nullopt, "proc", "core0_cpu_pct", cpu});
                smp.push_back({t, std::nullopt, "proc", "core1_cpu_pct", cpu});
                smp.push_back({t, std::nullopt, "proc", "host_mem_used_bytes", 2e9 + 1e8 * n});
                smp.push_back({t, std::nullopt, "proc", "host_load1", n / 10.0});
                for (int i = 0; i < n; ++i) {
                    smp.push_back({t, i, "proc", "cpu_pct", 30 + rng.u() * 10});
                    smp.push_back({t, i, "proc", "rss_bytes", 1.5e8});
                    smp.push_back({t, i, "software", "gpu_share_pct", 100.0 / n});
                }
            }
            w.add_samples(std::move(smp));
        }
        for (int r = 0; r < 2; ++r) {
            w.begin_step({int(k), r, n, st});
            StepEnd sr;
            sr.idx = int(k);
            sr.repeat = r;
            sr.window_start_ns = st + int64_t(settle_s * 1e9) + r * window_ns;
            sr.window_end_ns = sr.window_start_ns + window_ns;
            sr.ended_ns = sr.window_end_ns;
            w.end_step(sr);
        }
    }
    const int64_t end = t0 + int64_t(steps.size()) * step_ns;
    for (int i = 0; i < sessions_n; ++i) {
        SessionResult r;
        r.id = i;
        r.ended_ns = end;
        r.reason = SessionEnd::ok;
        r.exit_code = 0;
        r.frames_sent = r.frames_received = int64_t(ss[size_t(i)].count);
        w.update_session_end(r);
    }
    w.end_run(RunStatus::finished);
    w.finish();
    return total;
}

// The peer's input: the run's steps and its frames as rows (PATH.rows.db, made once).
std::string rows_copy(const std::string& db) {
    const std::string out = db + ".rows.db";
    if (std::filesystem::exists(out)) return out;
    const std::string tmp = out + ".part";
    std::filesystem::remove(tmp);
    {
        Db rows(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        Stmt attach(rows, "ATTACH DATABASE ?1 AS src");
        attach.bind_text(1, db).run();
        rows.exec("BEGIN; CREATE TABLE steps AS SELECT * FROM src.steps;"
                  " CREATE TABLE frames(session_id INTEGER, seq INTEGER, t_begin_ns INTEGER, interval_ns INTEGER);",
                  "copying the frames as rows");
        Db run = open_read_only(db);
        Stmt q(run, "SELECT session_id, seq, t_begin_ns, interval_ns FROM frames");  // store/frames_table.h
        Stmt ins(rows, "INSERT INTO frames VALUES(?1, ?2, ?3, ?4)");
        while (q.step()) ins.bind_int(1, q.col_int(0)).bind_int(2, q.col_int(1)).bind_int(3, q.col_int(2)).bind_int(4, q.col_int(3)).run();
        rows.exec("COMMIT", "copying the frames as rows");
    }
    std::filesystem::rename(tmp, out);
    return out;
}

const char* peer_sql =
    "WITH w AS (SELECT idx, MIN(window_start_ns) AS ws, MAX(window_end_ns) AS we FROM steps"
    "           WHERE window_end_ns IS NOT NULL GROUP BY idx),"
    " f AS (SELECT w.idx AS idx, fr.session_id AS sid, fr.interval_ns AS iv FROM frames fr"
    "       JOIN w ON fr.t_begin_ns >= w.ws AND fr.t_begin_ns < w.we WHERE fr.interval_ns >= 0),"
    " r AS (SELECT idx, sid, iv, ROW_NUMBER() OVER (PARTITION BY idx, sid ORDER BY iv) AS rn,"
    "       COUNT(*) OVER (PARTITION BY idx, sid) AS n FROM f)"
    " SELECT idx, sid, iv FROM r WHERE rn = (95 * n + 99) / 100 ORDER BY idx, sid;";

}  // namespace

int main(int argc, char** argv) {
    uint64_t target = 10'000'000;
    std::string db;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--db" && i + 1 < argc) db = argv[++i];
        else if (std::strtoull(a.c_str(), nullptr, 10) > 0) target = std::strtoull(a.c_str(), nullptr, 10);
        else {
            std::fprintf(stderr, "usage: bench_report [FRAMES] [--db PATH]\n");
            return 2;
        }
    }
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("seatmark-bench-report-" + std::to_string(getpid()))).string();
    std::filesystem::create_directories(dir);
    const bool keep_db = !db.empty();
    if (db.empty()) db = dir + "/run.db";

    uint64_t frames = 0;
    if (keep_db && std::filesystem::exists(db)) {
        frames = StoreReader(db).frame_count();
        std::printf("bench_report: reusing %s (%llu frames)\n", db.c_str(), static_cast<unsigned long long>(frames));
    } else {
        auto tg = Clock::now();
        frames = generate(db, target);
        std::printf("bench_report: generated %s: %llu frames, 30 sessions, 6 steps x 2 windows (%.1f s, %.0f MB)\n",
                    db.c_str(), static_cast<unsigned long long>(frames), seconds_since(tg),
                    double(std::filesystem::file_size(db)) / 1e6);
    }
    std::printf("  %u hardware threads\n", std::thread::hardware_concurrency());

    const std::string peer_db = rows_copy(db);
    // Warm the page cache for both contenders alike.
    {
        auto t = Clock::now();
        std::string cmd = "cat '" + db + "' '" + peer_db + "' > /dev/null";
        if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "bench_report: could not pre-read the file\n");
        std::printf("  page cache warmed in %.2f s\n", seconds_since(t));
    }

    // (a) the report.
    auto ta = Clock::now();
    const double cpu_a0 = cpu_seconds(RUSAGE_SELF);
    report::RunAnalysis a = report::analyze(db);
    double analyze_s = seconds_since(ta);
    report::write_report(a, dir + "/report");
    double report_s = seconds_since(ta);
    const double cpu_a = cpu_seconds(RUSAGE_SELF) - cpu_a0;
    std::printf("  (a) seatmark report (analyze %.2f s + write %.2f s)          : %6.2f s  (%.2f s CPU)  max density %u\n",
                analyze_s, report_s - analyze_s, report_s, cpu_a, a.max_density);

    // (b) the sqlite3 CLI, p95 per step and session only.
    auto tb = Clock::now();
    const double cpu_b0 = cpu_seconds(RUSAGE_CHILDREN);
    std::string cmd = "/usr/bin/sqlite3 -batch -readonly -separator ' ' '" + peer_db + "' \"" + peer_sql + "\"";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        std::perror("popen sqlite3");
        return 1;
    }
    std::map<std::pair<int, int>, double> peer;
    int idx, sid;
    long long iv;
    while (std::fscanf(p, "%d %d %lld", &idx, &sid, &iv) == 3) peer[{idx, sid}] = double(iv) * 1e-6;
    int rc = pclose(p);
    double peer_s = seconds_since(tb);
    const double cpu_b = cpu_seconds(RUSAGE_CHILDREN) - cpu_b0;
    std::printf("  (b) sqlite3 CLI, window functions, p95 per step and session : %6.2f s  (%.2f s CPU)  %zu p95 values, exit %d\n",
                peer_s, cpu_b, peer.size(), rc);

    // The same p95s?
    size_t same = 0, pairs = 0;
    for (const auto& s : a.steps)
        for (const auto& f : s.verdict.sessions) {
            ++pairs;
            auto it = peer.find({s.idx, int(f.id)});
            if (it != peer.end() && std::abs(it->second - f.summary.p95_ms) < 1e-9) ++same;
        }
    std::printf("  p95 per (step, session): %zu of %zu pairs identical in (a) and (b)\n", same, pairs);
    std::printf("  ratio (b)/(a) = %.1f wall, %.1f CPU  (goals: (a) < 5 s, ratio >= 5)\n", peer_s / report_s, cpu_b / cpu_a);
    if (double load[1]; getloadavg(load, 1) == 1)
        std::printf("  load average %.2f on %u CPUs (other work on the machine slows both sides)\n", load[0],
                    std::thread::hardware_concurrency());

    std::filesystem::remove_all(dir);
    return rc == 0 && same == pairs && pairs > 0 ? 0 : 1;
}
