#pragma once
// A small finished run written straight through StoreWriter (no sessions run), for the
// monitor's .db tests: step 1 with one healthy session, step 2 adds a slow session
// (breaks its SLA) and one that crashes; the second step fails.
#include <cmath>
#include <optional>
#include <string>

#include "store/store_writer.h"

namespace seatmark::test {

constexpr int64_t synth_origin_ns = 1'000'000'000'000;
constexpr int64_t synth_start_unix_ns = 1'700'000'000'000'000'000;

inline int64_t synth_t(double s) { return synth_origin_ns + int64_t(s * 1e9); }

// `host`, `rank`, `pool_id`: one host's file of a pool run (for seatmark merge). `launched`: an RDP
// launcher carried session 0 (user u1 on launcher lab-a): every second frame reached the client
// 20 ms after its present (4 ms after its begin), and every 30th has an SSIM of 0.95.
inline void write_synthetic_db(const std::string& path, const std::string& host = "testhost",
                               std::optional<int> rank = std::nullopt, const std::string& pool_id = "",
                               bool launched = false) {
    using namespace store;
    auto w = StoreWriter::open(path);
    RunInfo ri;
    ri.plan_text =
        "name = \"synthetic\"\n[run]\nstop = \"max\"\n[steps]\nlist = [1, 3]\nsettle = \"4s\"\nwindow = \"5s\"\n"
        "[[mix]]\nprofile = \"ci-tiny\"\n[sla]\np95_interval_ms = 33.3\n";
    ri.host = host;
    ri.pool_id = pool_id;
    ri.tool_version = "test";
    ri.started_unix_ns = synth_start_unix_ns;
    ri.mono_origin_ns = synth_origin_ns;
    w.begin_run(ri);
    HostInfo h;
    h.hostname = host;
    h.rank = rank;
    if (rank && *rank > 0) h.role = std::string(store::role_rank);
    h.cpu_count = 2;
    h.mem_total_bytes = 8LL << 30;
    w.add_host(h);

    auto session = [&](int id, double start, double end, double interval_ms, bool crash) {
        SessionInfo si;
        si.id = id;
        si.profile = "ci-tiny";
        si.pid = 1000 + id;
        si.started_ns = synth_t(start);
        si.device.device_name = "llvmpipe";
        si.device.software = true;
        w.add_session(si);
        std::vector<FrameRecord> frames;
        uint64_t seq = 0;
        for (double t = start + 0.3; t < end; t += interval_ms * 1e-3, ++seq) {
            FrameRecord f;
            f.seq = seq;
            f.t_begin_ns = synth_t(t);
            f.cpu_ns = 1'000'000;
            f.interval_ns = seq == 0 ? -1 : int64_t(interval_ms * 1e6);
            if (seq % 200 == 100) f.interval_ns *= 4;  // a spike now and then
            f.t_present_ns = f.t_begin_ns + 4'000'000;
            frames.push_back(f);
        }
        if (launched && id == 0) {
            EndpointLogonRow l;
            l.id = 1;
            l.launcher = "lab-a";
            l.rdp_host = "127.0.0.1:3389";
            l.host = host;
            l.user = "u1";
            l.session_id = id;
            l.connect_ns = synth_t(start) - 1'500'000'000;
            l.logon_ms = 1500;
            l.ended_ns = synth_t(end);
            l.fault = "logged-off";
            l.codec = "remotefx";
            l.bytes_per_s = 5e5;
            w.add_endpoint_logon(l);
            EndpointBatch b;
            b.session_id = id;
            for (const auto& f : frames) {
                if (f.seq % 2 == 0) b.arrivals.push_back({f.seq, f.t_present_ns + 20'000'000});
                if (f.seq % 30 == 0) b.ssim.push_back({f.seq, 0.95});
            }
            w.add_endpoint_batch(std::move(b));
        }
        int64_t n = int64_t(frames.size());
        w.add_frames(id, std::move(frames));
        for (double t = start; t < end; t += 0.5) {
            w.add_sample({synth_t(t), id, "proc", "cpu_pct", 40.0 + id * 10});
            w.add_sample({synth_t(t), id, "proc", "rss_bytes", 100e6});
        }
        SessionResult r;
        r.id = id;
        r.ended_ns = synth_t(end);
        r.reason = crash ? SessionEnd::crash : SessionEnd::ok;
        if (crash) r.signal = 11;
        r.frames_sent = n;
        r.frames_received = n;
        w.update_session_end(r);
        w.add_event({synth_t(end), id, crash ? "session-crash" : "session-end", crash ? "signal 11" : "ok"});
    };
    auto step = [&](int idx, int target, double start, double ws, double we, bool pass, double fps_median) {
        w.add_event({synth_t(start), std::nullopt, "step-begin", "step " + std::to_string(idx + 1)});
        w.begin_step({idx, 0, target, synth_t(start)});
        StepEnd r;
        r.idx = idx;
        r.window_start_ns = synth_t(ws);
        r.window_end_ns = synth_t(we);
        r.ended_ns = synth_t(we + 0.5);
        r.verdict = pass ? "pass" : "fail";
        r.detail = pass ? "" : "session 1: p95 40.0 ms > 33.3 ms";
        w.end_step(r);
        // The step's pooled verdict row, as the orchestrator stores it (the monitor reads these).
        VerdictRow v;
        v.step_idx = idx;
        v.repeat = pooled_repeat;
        v.target_sessions = target;
        v.t0_ns = synth_t(ws);
        v.t1_ns = synth_t(we);
        v.judged_ns = synth_t(we + 0.5);
        v.pass = pass;
        v.sessions = target;
        v.fps_median = fps_median;
        v.p95_worst_ms = pass ? 16.7 : 40.0;
        if (!pass) v.reasons = {r.detail};
        w.add_verdict(v);
        w.add_event({synth_t(we + 0.5), std::nullopt, "step-verdict",
                     store::step_verdict_detail(uint32_t(idx + 1), uint32_t(target), pass, r.detail)});
    };
    step(0, 1, 0, 4, 9, true, 1000 / 16.7);
    step(1, 3, 10, 14, 19.5, false, 1000 / 40.0);
    session(0, 0, 20.5, 16.7, false);
    session(1, 10, 20.5, 40, false);
    session(2, 10, 15, 16.7, true);
    for (double t = 0; t < 21; t += 0.5) {
        w.add_sample({synth_t(t), std::nullopt, "proc", "host_cpu_pct", 30 + t * 2});
        w.add_sample({synth_t(t), std::nullopt, "proc", "host_mem_used_bytes", 2e9});
    }
    w.end_run(RunStatus::finished, synth_start_unix_ns + int64_t(21e9));
    w.finish();
}

}  // namespace seatmark::test
