#include "monitor/synthetic.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace seatmark::monitor {

MonitorData synthetic_data(size_t sessions, double seconds, size_t frames, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    MonitorData d;
    auto& s = d.state;
    s.plan = "synthetic-" + std::to_string(sessions);
    s.host = "bench-host";
    s.db_path = "synthetic.db";
    s.status = "running";
    s.elapsed_s = seconds;
    const size_t steps = 8;
    s.steps = steps;
    s.step = steps - 1;
    s.target = uint32_t(sessions);
    s.phase = "measuring";
    s.phase_left_s = 12;
    s.host_cpu_pct = 91;
    s.host_mem_used_bytes = 48e9;
    s.host_mem_total_bytes = 128e9;
    s.gpu_backend = "nvml";
    s.gpu_util_pct = 87;
    s.gpu_mem_used_bytes = 60e9;
    s.gpu_mem_total_bytes = 96e9;
    for (size_t k = 0; k + 1 < steps; ++k) {
        core::LiveStep st;
        st.index = uint32_t(k);
        st.sessions = uint32_t(sessions * (k + 1) / steps);
        st.pass = k < 5;
        st.fps_median = 60 - double(k) * 4;
        st.p95_worst_ms = 18 + double(k) * 3;
        st.reason = st.pass ? "" : "p95 41.0 ms > 33.3 ms";
        s.finished_steps.push_back(st);
        if (st.pass) s.max_density_so_far = st.sessions;
    }
    for (size_t i = 0; i < sessions; ++i) {
        core::LiveSession x;
        x.id = uint32_t(i);
        x.profile = i % 4 == 3 ? "viewer-light" : "designer-medium";
        x.pid = 10000 + int64_t(i);
        double r = u(rng);
        x.state = r < 0.03 ? "crash" : r < 0.05 ? "starting" : r < 0.08 ? "ok" : "running";
        x.device = "NVIDIA RTX PRO 6000";
        x.frames = uint64_t(u(rng) * 200000);
        x.fps = x.state == "running" ? 25 + u(rng) * 40 : NAN;
        x.p95_ms = x.state == "running" ? 1000 / x.fps * (1.1 + u(rng)) : NAN;
        x.sla_ok = !(x.p95_ms > 33.3);
        x.cpu_pct = 20 + u(rng) * 60;
        x.rss_bytes = uint64_t(300e6 + u(rng) * 200e6);
        x.gpu_share_pct = 100.0 / double(sessions) * (0.5 + u(rng));
        x.gpu_share_source = "nvml";
        s.alive += x.state == "running" || x.state == "starting";
        s.sessions.push_back(std::move(x));
    }
    s.frames_stored = 123456789;
    // History: one point a second, the ramp visible in FPS and p95.
    for (double t = 0; t <= seconds; t += std::max(1.0, seconds / 3600)) {
        core::LiveHistoryPoint p;
        p.t_s = t;
        p.step = uint32_t(std::min<double>(steps, 1 + t / seconds * steps));
        p.target = uint32_t(sessions * p.step / steps);
        p.alive = p.target;
        double load = double(p.step) / steps;
        p.fps_median = 62 - 30 * load * load + u(rng) * 3;
        p.fps_min = p.fps_median - 5 - u(rng) * 10;
        p.p95_median_ms = 1000 / p.fps_median * 1.15;
        p.p95_worst_ms = p.p95_median_ms * (1.2 + u(rng) * 0.5);
        p.host_cpu_pct = 20 + 70 * load + u(rng) * 5;
        p.host_mem_used_bytes = 8e9 + 40e9 * load;
        p.host_mem_total_bytes = 128e9;
        p.gpu_util_pct = 15 + 75 * load + u(rng) * 5;
        p.gpu_mem_used_bytes = 60e9 * load;
        d.history.push_back(p);
    }
    d.bands = bands_from_history(d.history, s.finished_steps, seconds);
    for (size_t i = 0; i < 400; ++i) {
        EventLine e;
        e.id = i + 1;
        e.t_s = seconds * double(i) / 400;
        e.kind = i % 9 == 0 ? "session-end" : i % 3 == 0 ? "step-verdict" : "step-begin";
        e.bad = i % 9 == 0;
        e.text = e.bad ? "session " + std::to_string(i) + " ended: crash - signal 11" : "step event " + std::to_string(i);
        d.events.push_back(std::move(e));
    }
    auto f = std::make_shared<FrameSeries>();
    f->session = 0;
    f->t_s.reserve(frames);
    f->interval_ms.reserve(frames);
    double t = 0;
    for (size_t i = 0; i < frames; ++i) {
        double iv = 16.7 + u(rng) * 3 + (u(rng) < 0.001 ? 120 : 0);  // rare long frames
        t += iv * 1e-3;
        f->t_s.push_back(t);
        f->interval_ms.push_back(float(iv));
    }
    d.frames = f;
    d.link = Link::live;
    d.source = "synthetic";
    d.t_now_s = d.t_end_s = seconds;
    d.sla_p95_ms = 33.3;
    d.version = 1;
    return d;
}

}  // namespace seatmark::monitor
