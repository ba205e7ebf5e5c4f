#include "client/session.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "client/frame_log.h"
#include "client/interaction.h"
#include "client/model_scene.h"
#include "client/renderer.h"
#include "image/png.h"
#include "client/stop_signal.h"
#include "client/telemetry.h"
#include "client/vk_instance.h"
#include "client/window.h"
#include "common/clock.h"
#include "common/cpu_time.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "workloads/assembly.h"
#include "workloads/script.h"

namespace seatmark::client {

using workloads::DisplayMode;
using workloads::SegmentKind;

workloads::Profile resolve_profile(const SessionOptions& o) {
    workloads::Profile p = workloads::load_profile(o.workload);
    if (o.duration_s < 0) throw InputError("--duration: expected a positive duration such as 30s");
    if (o.duration_s > 0) p.default_duration_s = o.duration_s;
    if (o.width) p.render.width = o.width;
    if (o.height) p.render.height = o.height;
    if (o.msaa) p.render.msaa = o.msaa;
    if (o.seed_set) p.scene.seed = o.seed;
    if (!o.model.empty()) p.scene.model = o.model;
    if (p.render.width < 16 || p.render.width > 8192 || p.render.height < 16 || p.render.height > 8192)
        throw InputError("--width/--height: expected 16..8192, got " + std::to_string(p.render.width) + "x" +
                         std::to_string(p.render.height));
    if (p.render.msaa != 1 && p.render.msaa != 4 && p.render.msaa != 8)
        throw InputError("--msaa: expected 1, 4 or 8, got " + std::to_string(p.render.msaa));
    return p;
}

namespace {

void sleep_until_ns(int64_t t) {
    int64_t now = now_ns();
    if (t > now) std::this_thread::sleep_for(std::chrono::nanoseconds(t - now));
}

void warn_software(const DeviceInfo& d) {
    std::fprintf(stderr,
                 "seatmark: WARNING: %s is a SOFTWARE renderer (%s): frames are drawn by the CPU, so frame times "
                 "measure this host's CPU, not a GPU.\n",
                 d.name.c_str(), d.driver_name.c_str());
}

// What HELLO says: who this session is and the device it really got.
wire::Hello make_hello(const SessionOptions& o, const SessionResult& r) {
    wire::Hello h;
    h.session_id = o.session_id;
    h.pid = static_cast<uint32_t>(getpid());
    h.profile = r.profile.name;
    const DeviceInfo& d = r.device;
    h.device_name = d.name;
    h.device_type = d.type;
    h.vendor = d.vendor;
    h.driver_name = d.driver_name;
    h.driver_info = d.driver_info;
    h.driver_version = d.driver_version;
    h.api_version = d.api_version;
    h.software = d.software;
    h.device_index = d.index;
    h.vendor_id = d.vendor_id;
    h.device_id = d.device_id;
    h.width = r.profile.render.width;
    h.height = r.profile.render.height;
    h.msaa = r.profile.render.msaa;
    h.scene_triangles = r.scene_triangles;
    h.duration_s = r.profile.default_duration_s;
    h.t_ns = now_ns();
    return h;
}

std::function<void(const FrameRecord&)> with_telemetry(std::function<void(const FrameRecord&)> f,
                                                       TelemetrySender* t) {
    if (!t) return f;
    if (!f) return [t](const FrameRecord& r) { t->frame(r); };
    return [f = std::move(f), t](const FrameRecord& r) {
        f(r);
        t->frame(r);
    };
}

// Active time of the part of the timeline actually played (a session stopped
// early by a signal or a closed window has not played the rest).
double active_played(const workloads::Timeline& timeline, double played_s) {
    double a = 0;
    for (const auto& s : timeline.schedule())
        if (workloads::is_active(s.kind) && s.start_s < played_s) a += std::min(s.end_s, played_s) - s.start_s;
    return a;
}

// A frame's record started now, and the oldest scripted input event it shows (-1: none),
// from which its latency is measured when its fence signals.
struct FrameStart {
    FrameRecord record;
    int64_t input_ns = -1;
};

// Starts a frame: its input event, its interval within the current stretch, its flags
// and display mode. Shared by the Vulkan and the synthetic loops so both define a
// frame the same way.
FrameStart begin_record(InputClock& input, int64_t prev_begin, uint32_t stretch, DisplayMode mode,
                        uint16_t extra_flags) {
    FrameStart f;
    FrameRecord& r = f.record;
    r.t_begin_ns = now_ns();
    f.input_ns = input.take(r.t_begin_ns);
    r.flags = extra_flags;
    if (f.input_ns >= 0) r.flags |= frame_flag_input;
    if (prev_begin >= 0)
        r.interval_ns = r.t_begin_ns - prev_begin;
    else
        r.flags |= frame_flag_stretch_start;
    r.stretch = stretch;
    r.mode = static_cast<uint16_t>(mode);
    return f;
}

// Render loop progress for HEARTBEAT, and the end of the session once telemetry is lost.
void tick(TelemetrySender* t) {
    if (!t) return;
    t->alive();
    t->check();
}

// --synthetic-fps: the session's timeline and bookkeeping without Vulkan. No
// device, no scene, no rendering; frames are emitted at `fps` during active
// segments (sleeping between them), none during think pauses.
SessionResult run_synthetic(const SessionOptions& opts, SessionResult result,
                            std::function<void(const FrameRecord&)> on_frame, TelemetrySender* telemetry) {
    const auto& prof = result.profile;
    if (opts.window || !opts.screenshot.empty() || opts.validate || opts.bare)
        throw InputError("--synthetic-fps renders nothing: it cannot be combined with --window, --screenshot or --validate");
    if (!(opts.synthetic_fps > 0 && opts.synthetic_fps <= 10000))
        throw InputError("--synthetic-fps: expected 0 < N <= 10000 frames per second");
    DeviceInfo& d = result.device;
    d.name = "synthetic";
    d.type = "synthetic";
    d.vendor = "seatmark";
    d.driver_name = "synthetic";
    char rate[64];
    std::snprintf(rate, sizeof rate, "--synthetic-fps %g", opts.synthetic_fps);
    d.driver_info = rate;
    if (telemetry) telemetry->start(make_hello(opts, result));

    constexpr int64_t synthetic_cpu_ns = 100'000;
    const int64_t period_ns = std::max<int64_t>(1, int64_t(1e9 / opts.synthetic_fps));
    const workloads::Assembly no_scene;
    Interaction ui(no_scene, prof.render.mode, prof.scene.seed);  // for the display mode of each frame
    FrameLog log(with_telemetry(std::move(on_frame), telemetry));
    workloads::Timeline timeline(prof.script, prof.default_duration_s, prof.scene.seed);
    const int64_t input_period_ns = prof.script.input_rate_hz > 0 ? int64_t(1e9 / prof.script.input_rate_hz) : 0;
    uint32_t stretch = 0;
    int64_t prev_begin = -1;

    auto wait_until = [&](int64_t t) {  // in steps, so a lost connection or a stop ends the session soon
        for (int64_t now = now_ns(); now < t && !stop_requested(); now = now_ns()) {
            sleep_until_ns(std::min(t, now + 50'000'000));
            tick(telemetry);
        }
    };
    auto emit_frame = [&](InputClock& input, uint16_t extra_flags) {
        if (prev_begin >= 0) wait_until(prev_begin + period_ns);
        auto [r, input_ns] = begin_record(input, prev_begin, stretch, ui.mode(), extra_flags);
        uint64_t seq = log.begin(r, input_ns);
        log.set_cpu(seq, synthetic_cpu_ns);
        log.complete(FrameDone{seq, r.t_begin_ns + synthetic_cpu_ns, -1});
        prev_begin = r.t_begin_ns;
        tick(telemetry);
    };

    const int64_t t0 = now_ns();
    const double cpu0 = process_cpu_seconds();
    for (const auto& sched : timeline.schedule()) {
        if (stop_requested()) break;
        const auto& seg = prof.script.segments[sched.segment];
        const int64_t start = t0 + int64_t(sched.start_s * 1e9);
        const int64_t end = t0 + int64_t(sched.end_s * 1e9);
        if (seg.kind == SegmentKind::think) {
            wait_until(end);
            ++stretch;
            prev_begin = -1;
            continue;
        }
        wait_until(start);
        InputClock input{start, workloads::is_instant(seg.kind) ? start + 1 : end, 0, start};
        if (workloads::is_instant(seg.kind)) {
            bool switched = ui.apply_instant(seg);
            emit_frame(input, switched ? frame_flag_mode_switch : 0);
            continue;
        }
        input.period_ns = input_period_ns;
        ui.begin_segment(seg, sched.iteration);
        bool first = true;
        while ((prev_begin >= 0 ? prev_begin + period_ns : now_ns()) < end && !stop_requested()) {
            emit_frame(input, first && seg.kind == SegmentKind::section_sweep ? frame_flag_mode_switch : 0);
            first = false;
        }
        ui.end_segment(sched.end_s - sched.start_s);
    }
    result.wall_s = double(now_ns() - t0) * 1e-9;
    result.cpu_s = process_cpu_seconds() - cpu0;
    result.frames = log.take();
    result.summary = stats::summarize(result.frames, active_played(timeline, result.wall_s));
    return result;
}

}  // namespace

SessionResult run_session(const SessionOptions& opts, std::function<void(const FrameRecord&)> on_frame,
                          TelemetrySender* telemetry) {
    const int64_t t_start = now_ns();  // model open time runs from here to the first frame showing it
    SessionResult result;
    result.profile = resolve_profile(opts);
    const auto& prof = result.profile;
    if (opts.synthetic_fps != 0) return run_synthetic(opts, std::move(result), std::move(on_frame), telemetry);

    std::unique_ptr<pack::PackFile> model;
    workloads::Assembly assembly;
    if (!prof.scene.model.empty()) {
        model = open_model(prof.scene.model);
        result.model = model->path();
        assembly = pack_outline(*model);
    } else {
        workloads::AssemblySpec spec;
        spec.seed = prof.scene.seed;
        spec.triangle_budget = prof.scene.triangles;
        assembly = workloads::generate_assembly(spec);
    }
    result.scene_triangles = assembly.triangles;
    result.scene_parts = assembly.parts.size();

    std::unique_ptr<Window> window;
    InstanceOptions io;
    io.validate = opts.validate;
    if (opts.window) {
        window = std::make_unique<Window>(prof.render.width, prof.render.height, "seatmark session: " + prof.name);
        io.extensions = window->instance_extensions();
    }
    Instance instance(io);
    result.device = choose_device(instance.handle(), opts.device);
    const DeviceInfo& info = result.device;
    if (info.max_msaa < prof.render.msaa) {
        // Lavapipe, for one, stops at 4x: render at the most the device has and say so
        // (summary, HELLO), rather than refuse a built-in profile on this machine.
        result.msaa_requested = prof.render.msaa;
        result.profile.render.msaa = info.max_msaa >= 4 ? 4 : 1;
        std::fprintf(stderr, "seatmark: WARNING: %s supports at most %ux MSAA; rendering at %ux instead of %ux\n",
                     info.name.c_str(), info.max_msaa, prof.render.msaa, result.msaa_requested);
    }
    if (telemetry) {
        telemetry->start(make_hello(opts, result));
        if (info.software)
            telemetry->event(wire::EventKind::software_fallback,
                             info.name + " (" + info.driver_name + ") is a software renderer");
    }
    if (info.software) {
        if (!opts.allow_software)
            throw ExitError(exit_code::software_fallback,
                            "device " + info.name + " (" + info.driver_name +
                                ") is a software renderer and --no-software was given; pick a GPU with --device "
                                "or check that its Vulkan driver is installed");
        warn_software(info);
    }
    std::vector<const char*> dev_ext;
    if (window) dev_ext.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    Device device(instance.handle(), info, dev_ext);

    RenderSettings rs;
    rs.width = prof.render.width;
    rs.height = prof.render.height;
    rs.msaa = prof.render.msaa;
    std::unique_ptr<Presenter> presenter;
    if (window) presenter = std::make_unique<Presenter>(instance.handle(), device, *window, VkExtent2D{rs.width, rs.height});
    FrameLog log(with_telemetry(std::move(on_frame), telemetry));  // declared before the renderer: its watcher thread writes here until joined
    Renderer renderer(device, model ? SceneInput(*model) : SceneInput(assembly), rs);
    tick(telemetry);
    if (presenter) renderer.set_present_hook(presenter.get());
    const float aspect = float(rs.width) / float(rs.height);

    Interaction ui(assembly, prof.render.mode, prof.scene.seed, aspect);
    {
        // The screenshot frame doubles as warm-up: first-use costs stay out of the measurements.
        Interaction home(assembly, DisplayMode::shaded_edges, prof.scene.seed, aspect);
        auto pixels = renderer.capture(home.params(aspect));
        result.model_open_s = double(now_ns() - t_start) * 1e-9;  // capture() returned after the frame's fence
        if (!opts.screenshot.empty()) image::write_png(opts.screenshot, rs.width, rs.height, pixels);
    }
    tick(telemetry);

    renderer.on_done([&](const FrameDone& d) { log.complete(d); });

    const int64_t t0 = now_ns();
    const double cpu0 = process_cpu_seconds();
    if (opts.bare) {
        // Harness off: the same scene and view, no script, clock reads or records.
        FrameParams p = ui.params(aspect);
        renderer.on_done({});
        for (uint64_t i = 0; i < opts.bare_frames; ++i) renderer.submit(p, i);
        renderer.drain();
        result.wall_s = double(now_ns() - t0) * 1e-9;
        result.cpu_s = process_cpu_seconds() - cpu0;
        result.validation_messages = instance.validation_messages();
        return result;
    }

    workloads::Timeline timeline(prof.script, prof.default_duration_s, prof.scene.seed);
    const int64_t cap_ns = prof.render.frame_cap_hz > 0 ? int64_t(1e9 / prof.render.frame_cap_hz) : 0;
    const int64_t input_period_ns = prof.script.input_rate_hz > 0 ? int64_t(1e9 / prof.script.input_rate_hz) : 0;
    uint32_t stretch = 0;
    int64_t prev_begin = -1;  // previous frame's begin in this stretch
    bool closed = false;

    auto render_frame = [&](InputClock& input, uint16_t extra_flags) {
        if (cap_ns > 0 && prev_begin >= 0) sleep_until_ns(prev_begin + cap_ns);
        renderer.wait_for_slot();
        if ((window && window->should_close()) || stop_requested()) {
            closed = true;
            return;
        }
        auto [r, input_ns] = begin_record(input, prev_begin, stretch, ui.mode(), extra_flags);
        uint64_t seq = log.begin(r, input_ns);
        renderer.submit(ui.params(aspect), seq);
        log.set_cpu(seq, now_ns() - r.t_begin_ns);
        prev_begin = r.t_begin_ns;
        tick(telemetry);
    };

    for (const auto& sched : timeline.schedule()) {
        if (closed || stop_requested()) break;
        const auto& seg = prof.script.segments[sched.segment];
        const int64_t start = t0 + int64_t(sched.start_s * 1e9);
        const int64_t end = t0 + int64_t(sched.end_s * 1e9);
        if (seg.kind == SegmentKind::think) {
            // Render on demand: nothing is drawn while the user thinks, and the
            // next frame starts a new stretch (no interval spans the pause).
            while (now_ns() < end && !(window && window->should_close()) && !stop_requested()) {
                if (window) window->poll();
                sleep_until_ns(std::min(end, now_ns() + 20'000'000));
                tick(telemetry);
            }
            ++stretch;
            prev_begin = -1;
            continue;
        }
        sleep_until_ns(start);
        InputClock input{start, workloads::is_instant(seg.kind) ? start + 1 : end, 0, start};
        if (workloads::is_instant(seg.kind)) {
            bool switched = ui.apply_instant(seg);
            render_frame(input, switched ? frame_flag_mode_switch : 0);
            continue;
        }
        input.period_ns = input_period_ns;
        ui.begin_segment(seg, sched.iteration);
        bool first = true;
        for (;;) {
            int64_t now = now_ns();
            if (now >= end) break;
            ui.at(double(now - start) * 1e-9);
            render_frame(input, first && seg.kind == SegmentKind::section_sweep ? frame_flag_mode_switch : 0);
            if (closed) break;
            if (window) window->poll();
            first = false;
        }
        ui.end_segment(sched.end_s - sched.start_s);
    }
    renderer.drain();
    result.wall_s = double(now_ns() - t0) * 1e-9;
    result.cpu_s = process_cpu_seconds() - cpu0;
    result.window_closed = closed;
    result.frames = log.take();
    result.summary = stats::summarize(result.frames, active_played(timeline, result.wall_s));
    result.validation_messages = instance.validation_messages();
    return result;
}

std::string format_summary(const SessionResult& r) {
    const auto& s = r.summary;
    const auto& d = r.device;
    char buf[2048];
    auto ms = [](double v) {
        char b[32];
        if (std::isnan(v)) return std::string("n/a");
        std::snprintf(b, sizeof b, "%.2f", v);
        return std::string(b);
    };
    std::snprintf(buf, sizeof buf,
                  "session    %s (%s), %" PRIu64 " parts, %" PRIu64 " triangles, %ux%u msaa %u%s\n"
                  "device     %s [%s, %s], driver %s %s%s\n"
                  "frames     %" PRIu64 " in %.1f s active (%.1f s wall), dropped %" PRIu64 "\n"
                  "FPS        %.1f   (frames / active time)\n"
                  "interval   p50 %s ms  p95 %s ms  p99 %s ms   (nearest rank, within active stretches)\n"
                  "1%% low     %.1f FPS   (1000 / p99 interval); time-weighted %.1f FPS\n"
                  "stutter    %.2f %%   (frames with interval > 2.5 x median)\n"
                  "latency    p95 %s ms   (scripted input -> fence of the first frame showing it)\n"
                  "cpu / gpu  p50 %s ms / %s ms   (begin -> submit returned / Vulkan timestamps)\n",
                  r.profile.name.c_str(), r.profile.source.c_str(), r.scene_parts, r.scene_triangles,
                  r.profile.render.width, r.profile.render.height, r.profile.render.msaa,
                  r.msaa_requested ? (" (" + std::to_string(r.msaa_requested) + " requested, not supported)").c_str() : "",
                  d.name.c_str(),
                  d.type.c_str(), d.vendor.c_str(), d.driver_name.c_str(), d.driver_info.c_str(),
                  d.software ? "  ** SOFTWARE RENDERER **" : "", s.frames, s.active_s, r.wall_s, s.dropped, s.fps,
                  ms(s.p50_ms).c_str(), ms(s.p95_ms).c_str(), ms(s.p99_ms).c_str(), s.low1_fps, s.low1_tw_fps,
                  s.stutter * 100.0, ms(s.latency_p95_ms).c_str(), ms(s.cpu_p50_ms).c_str(), ms(s.gpu_p50_ms).c_str());
    char open_line[512];
    std::snprintf(open_line, sizeof open_line, "model open %.3f s   (session start -> first frame showing %s)\n",
                  r.model_open_s, r.model.empty() ? "the procedural assembly" : r.model.c_str());
    return std::string(buf) + open_line;
}

void write_frames_csv(const std::string& path, const std::vector<FrameRecord>& frames) {
    std::ofstream f(path);
    if (!f) throw InputError("--out " + path + ": cannot open for writing; check the directory exists and is writable");
    f << "seq,t_begin_ns,cpu_ns,gpu_ns,interval_ns,latency_ns,stretch,mode,flags\n";
    for (const auto& r : frames) {
        f << r.seq << ',' << r.t_begin_ns << ',' << r.cpu_ns << ',' << r.gpu_ns << ',' << r.interval_ns << ','
          << r.latency_ns << ',' << r.stretch << ',' << workloads::to_string(static_cast<DisplayMode>(r.mode)) << ','
          << r.flags << '\n';
    }
    if (!f) throw std::runtime_error("--out " + path + ": write failed");
}

}  // namespace seatmark::client
