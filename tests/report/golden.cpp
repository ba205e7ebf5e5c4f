#include "tests/report/golden.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "store/store_writer.h"

namespace seatmark::test::golden {

using namespace seatmark::store;

std::string plan_text() {
    return R"(name = "golden"

[run]
stop = "max"
knee_margin_pct = 25

[steps]
list = [1, 2, 3, 4, 5, 6, 7, 8]
settle = "5s"
window = "10s"

[[mix]]
profile = "ci-tiny"

[sla]
p95_interval_ms = 33.3
low1_fps = 20
latency_p95_ms = 100
stutter_pct = 5
failures = 1
)";
}

Spec crafted() {
    Spec s;
    s.plan_text = plan_text();
    s.steps = {{1, {16}, "pass"}, {2, {16, 18}, "pass"}, {3, {19}, "pass"}, {4, {22}, "pass"},
               {5, {25}, "pass"}, {6, {30}, "pass"},     {7, {40}, "fail"}, {8, {45}, "fail"}};
    s.crashes = {{2, 3, 8.0, "crash"}};
    return s;
}

namespace {

int64_t ns(double s) { return static_cast<int64_t>(std::llround(s * 1e9)); }

struct Region {
    int64_t a, b, interval;
};

// The run's regions of constant frame interval.
std::vector<Region> regions(const Spec& spec) {
    std::vector<Region> out;
    for (size_t k = 0; k < spec.steps.size(); ++k) {
        const auto& st = spec.steps[k];
        int64_t s0 = t0_ns + ns(step_s * double(k));
        auto iv = [](double ms) { return static_cast<int64_t>(std::llround(ms * 1e6)); };
        out.push_back({s0, s0 + ns(settle_s), iv(st.window_interval_ms.front())});
        double w = measure_s / double(st.window_interval_ms.size());
        for (size_t r = 0; r < st.window_interval_ms.size(); ++r)
            out.push_back({s0 + ns(settle_s + w * double(r)), s0 + ns(settle_s + w * double(r + 1)),
                           iv(st.window_interval_ms[r])});
        out.push_back({s0 + ns(settle_s + measure_s), s0 + ns(step_s), iv(st.window_interval_ms.back())});
    }
    return out;
}

uint64_t write_all(const std::string& path, const Spec& spec, bool finish) {
    StoreOptions o;
    o.overwrite = true;
    StoreWriter w = StoreWriter::open(path, o);
    RunInfo ri;
    ri.plan_text = spec.plan_text;
    ri.plan_path = "golden.toml";
    ri.tool_version = "seatmark 0.1.0";
    ri.host = spec.host;
    ri.started_unix_ns = 1'700'000'000'000'000'000;
    ri.mono_origin_ns = t0_ns;
    ri.pool_id = spec.pool_id;
    w.begin_run(ri);
    HostInfo hi;
    hi.hostname = spec.host;
    hi.cpu_model = "Golden CPU";
    hi.cpu_count = 2;
    hi.mem_total_bytes = int64_t(8) << 30;
    hi.os = "Debian GNU/Linux 12 (bookworm)";
    hi.kernel = "6.1.0";
    hi.rank = spec.rank;
    if (spec.rank && *spec.rank > 0) hi.role = std::string(role_rank);
    w.add_host(hi);
    for (const auto& o : spec.others) w.add_host(o);

    const auto regs = regions(spec);
    const int64_t run_end = t0_ns + ns(step_s * double(spec.steps.size()));
    struct Live {
        int64_t start = 0, end = 0;  // end: crash time or the run's end
        std::string reason = "ok";
        uint64_t frames = 0;
    };
    std::map<int, Live> sessions;
    int next_id = 0;
    uint64_t total = 0;
    for (size_t k = 0; k < spec.steps.size(); ++k) {
        const auto& st = spec.steps[k];
        int64_t s0 = t0_ns + ns(step_s * double(k));
        // Start sessions until the live count reaches the target, as the orchestrator does.
        uint32_t alive = 0;
        for (auto& [id, l] : sessions) alive += l.end > s0;
        for (; alive < st.target; ++alive) {
            int id = next_id++;
            Live l;
            l.start = s0;
            l.end = run_end;
            for (const auto& c : spec.crashes)
                if (c.session == id) {
                    l.end = t0_ns + ns(step_s * double(c.step) + c.at_s);
                    l.reason = c.reason;
                }
            sessions[id] = l;
            SessionInfo si;
            si.id = id;
            si.profile = "ci-tiny";
            si.pid = 1000 + id;
            si.started_ns = s0;
            w.add_session(si);
            SessionDevice d;
            d.device_name = spec.software ? "llvmpipe (LLVM 15.0.6, 256 bits)" : "Golden GPU 6000";
            d.device_type = spec.software ? "cpu" : "discrete-gpu";
            d.driver_name = spec.software ? "llvmpipe" : "golden";
            d.driver_info = "Mesa 22.3.6";
            d.software = spec.software;
            w.set_session_device(id, d);
            w.add_event({s0, id, "session-start", "pid " + std::to_string(1000 + id)});
        }
        w.add_event({s0, std::nullopt, "step-begin", "step " + std::to_string(k + 1) + ": " + std::to_string(st.target) + " sessions"});
        // Host samples every 0.5 s: CPU = 10 % (host_cpu_per_session_pct) per target session.
        std::vector<SampleRow> samples;
        for (int64_t t = s0; t < s0 + ns(step_s); t += 500'000'000) {
            samples.push_back({t, std::nullopt, "proc", "host_cpu_pct", spec.host_cpu_per_session_pct * st.target});
            for (auto& [id, l] : sessions)
                if (l.start <= t && t < l.end) samples.push_back({t, id, "proc", "cpu_pct", 50.0});
        }
        w.add_samples(std::move(samples));
    }
    // Frames, session by session, region by region.
    for (auto& [id, l] : sessions) {
        std::vector<FrameRecord> batch;
        uint64_t seq = 0;
        for (const auto& r : regs) {
            if (r.b <= l.start || r.a >= l.end) continue;
            for (int64_t t = r.a; t < r.b && t < l.end; t += r.interval) {
                if (t < l.start + 100'000'000) continue;  // the first frame comes 0.1 s after the start
                FrameRecord f;
                f.seq = seq;
                f.t_begin_ns = t;
                f.cpu_ns = 1'000'000;
                f.gpu_ns = 2'000'000;
                f.interval_ns = seq == 0 ? -1 : r.interval;
                f.latency_ns = seq % 10 == 0 ? static_cast<int64_t>(spec.latency_ms * 1e6) : -1;
                f.flags = seq % 10 == 0 ? 1 : 0;
                batch.push_back(f);
                ++seq;
                if (batch.size() == 4096) w.add_frames(id, std::exchange(batch, {}));
            }
        }
        if (!batch.empty()) w.add_frames(id, std::move(batch));
        l.frames = seq;
        total += seq;
    }
    // Steps: one row per window, with the stored verdicts.
    for (size_t k = 0; k < spec.steps.size(); ++k) {
        const auto& st = spec.steps[k];
        int64_t s0 = t0_ns + ns(step_s * double(k));
        double wl = measure_s / double(st.window_interval_ms.size());
        for (size_t r = 0; r < st.window_interval_ms.size(); ++r) {
            w.begin_step({int(k), int(r), int(st.target), s0});
            if (!finish && k + 1 == spec.steps.size()) continue;  // the last step never ended
            StepEnd sr;
            sr.idx = int(k);
            sr.repeat = int(r);
            sr.window_start_ns = s0 + ns(settle_s + wl * double(r));
            sr.window_end_ns = s0 + ns(settle_s + wl * double(r + 1));
            sr.ended_ns = sr.window_end_ns + 600'000'000;
            sr.verdict = st.stored_verdict;
            sr.detail = st.stored_verdict == "pass" ? "" : "session 0: p95 too high";
            w.end_step(sr);
        }
    }
    for (auto& [id, l] : sessions) {
        if (!finish && l.reason == "ok") continue;  // still running when the writer died
        SessionResult r;
        r.id = id;
        r.ended_ns = l.end;
        r.reason = parse_session_end(l.reason);
        if (l.reason == "crash") r.signal = 11;
        else r.exit_code = 0;
        r.frames_received = static_cast<int64_t>(l.frames);
        r.frames_sent = l.reason == "ok" ? std::optional<int64_t>(static_cast<int64_t>(l.frames)) : std::nullopt;
        r.detail = l.reason == "crash" ? "killed by signal 11 (Segmentation fault)" : "";
        w.update_session_end(r);
        if (l.reason != "ok") w.add_event({l.end, id, "session-" + l.reason, "killed by signal 11"});
        w.add_event({l.end, id, "session-end", l.reason});
    }
    if (!finish) {
        w.flush();
        return total;
    }
    w.end_run(spec.end_status);
    w.finish();
    return total;
}

}  // namespace

uint64_t write(const std::string& path, const Spec& spec) {
    if (spec.finish) return write_all(path, spec, true);
    // A writer that dies: the child writes and flushes, then exits without finishing.
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        uint64_t n = write_all(path, spec, false);
        ssize_t ignored = ::write(fds[1], &n, sizeof n);
        (void)ignored;
        _exit(0);
    }
    close(fds[1]);
    uint64_t n = 0;
    ssize_t got = read(fds[0], &n, sizeof n);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != sizeof n || !WIFEXITED(status)) throw std::runtime_error("golden writer child failed");
    return n;
}

}  // namespace seatmark::test::golden
