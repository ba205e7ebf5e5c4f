#include "client/session.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sstream>

#include "client/frame_log.h"
#include "client/interaction.h"
#include "client/model_scene.h"
#include "common/file_hash.h"
#include "client/renderer.h"
#include "client/script_player.h"
#include "image/png.h"
#include "client/reference_keep.h"
#include "image/reference_frame.h"
#include "core/ssim.h"
#include "client/stop_signal.h"
#include "client/synthetic_sink.h"
#include "client/telemetry.h"
#include "client/vk_instance.h"
#include "client/vulkan_sink.h"
#include "client/window.h"
#include "common/clock.h"
#include "common/cpu_time.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"
#include "common/self_exe.h"
#include "workloads/assembly.h"

namespace seatmark::client {

using workloads::DisplayMode;

workloads::Profile resolve_profile(const SessionOptions& o) {
    workloads::Profile p = o.profile_text.empty() ? workloads::load_profile(o.workload)
                                                  : workloads::parse_profile(o.profile_text, o.workload);
    if (o.duration_s < 0) throw InputError("--duration: expected a positive duration such as 30s");
    if (o.duration_s > 0) p.default_duration_s = o.duration_s;
    if (o.width) p.render.width = o.width;
    if (o.height) p.render.height = o.height;
    if (o.msaa) p.render.msaa = o.msaa;
    if (o.seed_set) p.scene.seed = o.seed;
    if (!o.model.empty()) p.scene.model = o.model;
    using workloads::max_render_side, workloads::min_render_side;
    if (p.render.width < min_render_side || p.render.width > max_render_side || p.render.height < min_render_side ||
        p.render.height > max_render_side)
        throw InputError("--width/--height: expected 16..32768, got " + std::to_string(p.render.width) + "x" +
                         std::to_string(p.render.height));
    if (!workloads::valid_msaa(p.render.msaa))
        throw InputError("--msaa: expected 1, 2, 4, 8, 16, 32 or 64, got " + std::to_string(p.render.msaa));
    return p;
}

namespace {

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
    h.pid = current_pid();
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

// Render loop progress for HEARTBEAT, and the end of the session once telemetry is lost.
// `log` is null before any frame can begin (set-up steps).
void tick(TelemetrySender* t, const FrameLog* log = nullptr) {
    if (!t) return;
    const int64_t now = now_ns();
    t->alive(log ? log->complete_through(now) : now);
    t->check();
}

PlayOptions play_options(const SessionOptions& opts, const workloads::Profile& prof, TelemetrySender* telemetry,
                         const FrameLog& log, float aspect) {
    PlayOptions po;
    po.duration_s = prof.default_duration_s;
    po.cap_hz = opts.synthetic_fps > 0 ? opts.synthetic_fps : prof.render.frame_cap_hz;
    po.aspect = aspect;
    po.stop = [] { return stop_requested(); };
    po.tick = [telemetry, &log] { tick(telemetry, &log); };
    return po;
}

void finish(SessionResult& result, FrameLog& log, const PlayResult& played, double cpu0) {
    result.wall_s = played.wall_s;
    result.cpu_s = process_cpu_seconds() - cpu0;
    result.window_closed = played.closed;
    result.frames = log.take();
    result.summary = stats::summarize(result.frames, played.active_s);
}

bool synthetic(const SessionOptions& o) { return o.synthetic_fps != 0 || o.synthetic_cpu_ms != 0; }

// --synthetic-fps / --synthetic-cpu-ms: the session's timeline and bookkeeping without
// Vulkan. No device, no scene; the same player drives the synthetic sink.
SessionResult run_synthetic(const SessionOptions& opts, SessionResult result,
                            std::function<void(const FrameRecord&)> on_frame, TelemetrySender* telemetry) {
    const auto& prof = result.profile;
    if (opts.window || !opts.screenshot.empty() || opts.validate || opts.bare)
        throw InputError("--synthetic-fps/--synthetic-cpu-ms render nothing: they cannot be combined with --window, "
                         "--screenshot or --validate");
    if (!(opts.synthetic_fps == 0 || (opts.synthetic_fps >= workloads::min_rate_hz && opts.synthetic_fps <= 10000)))
        throw InputError("--synthetic-fps: expected 1 <= N <= 10000 frames per second");
    if (!(opts.synthetic_cpu_ms >= 0 && opts.synthetic_cpu_ms <= 60000))
        throw InputError("--synthetic-cpu-ms: expected 0 <= MS <= 60000 milliseconds of CPU per frame");
    DeviceInfo& d = result.device;
    d.name = "synthetic";
    d.type = "synthetic";
    d.vendor = "seatmark";
    d.driver_name = "synthetic";
    char info[96];
    std::snprintf(info, sizeof info, "--synthetic-fps %g --synthetic-cpu-ms %g", opts.synthetic_fps,
                  opts.synthetic_cpu_ms);
    d.driver_info = info;
    if (telemetry) {
        telemetry->start(make_hello(opts, result));
        telemetry->event(wire::EventKind::info, describe(result.logon));
    }

    const workloads::Assembly no_scene;
    Interaction ui(no_scene, prof.render.mode, prof.scene.seed);  // for the display mode of each frame
    SyntheticSink sink(int64_t(opts.synthetic_cpu_ms * 1e6), [] { return stop_requested(); });
    FrameLog log(with_telemetry(std::move(on_frame), telemetry), !sink.presents());
    const double cpu0 = process_cpu_seconds();
    PlayResult played = play_script(prof, ui, sink, log, play_options(opts, prof, telemetry, log, 4.0f / 3.0f));
    finish(result, log, played, cpu0);
    return result;
}

// Setup phases can each take seconds (a large scene, a slow driver): a stop request
// between them ends the session before its first frame, with no frames.
bool stopped_in_setup(SessionResult& result) {
    if (!stop_requested()) return false;
    result.summary = stats::summarize({}, 0);
    return true;
}

// Sampled frames as the session rendered them, gray and halved, for the launcher's SSIM
// (image/reference_frame.h). Runs on the renderer's watcher thread, one frame in
// --reference-every; a write that fails is reported once and sampling goes on.
Renderer::ReferenceCallback reference_writer(const std::string& dir, std::shared_ptr<ReferenceKeep> keep) {
    auto warned = std::make_shared<bool>(false);
    return [dir, keep, warned](uint64_t token, const uint8_t* rgba, uint32_t w, uint32_t h) {
        const watermark::FrameView view{rgba, static_cast<int>(w), static_cast<int>(h), static_cast<int>(w) * 4};
        const int gw = std::max(8, static_cast<int>(w) / 2), gh = std::max(8, static_cast<int>(h) / 2);
        auto g = ssim::gray_downscaled(view, 0, 0, static_cast<int>(w), static_cast<int>(h), gw, gh, /*red_first=*/true);
        image::ReferenceFrame r{token, static_cast<int>(w), static_cast<int>(h), gw, gh, std::move(g.pixels)};
        if (keep) keep->put(r);
        if (dir.empty()) return;
        try {
            image::write_reference(dir + "/" + image::reference_name(token), r);
        } catch (const std::exception& e) {
            if (!*warned) std::fprintf(stderr, "seatmark: warning: --reference-dir: %s\n", e.what());
            *warned = true;
        }
    };
}

}  // namespace

SessionResult run_session(const SessionOptions& opts, std::function<void(const FrameRecord&)> on_frame,
                          TelemetrySender* telemetry) {
    const int64_t t_start = now_ns();  // model open time runs from here to the first frame showing it
    SessionResult result;
    result.profile = resolve_profile(opts);
    result.logon = current_logon_session();
    const auto& prof = result.profile;
    if (synthetic(opts)) return run_synthetic(opts, std::move(result), std::move(on_frame), telemetry);

    std::unique_ptr<pack::PackFile> model;
    workloads::Assembly assembly;
    if (!prof.scene.model.empty()) {
        try {
            model = open_model(prof.scene.model, [] { return stop_requested(); });
        } catch (const HashStopped&) {  // a model of many GB is hashed before use: a stop ends it
            stopped_in_setup(result);
            return result;
        }
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
    if (stopped_in_setup(result)) return result;

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
    if (std::max(prof.render.width, prof.render.height) > info.max_image_dimension_2d)
        throw InputError(std::to_string(prof.render.width) + "x" + std::to_string(prof.render.height) + ": " + info.name +
                         " renders images of at most " + std::to_string(info.max_image_dimension_2d) +
                         " pixels a side (maxImageDimension2D); lower --width/--height or the profile's [render] size");
    if (info.max_msaa < prof.render.msaa) {
        // Lavapipe, for one, stops at 4x: render at the most the device has and say so
        // (summary, HELLO), rather than refuse a built-in profile on this machine.
        result.msaa_requested = prof.render.msaa;
        result.profile.render.msaa = info.max_msaa;
        std::fprintf(stderr, "seatmark: WARNING: %s supports at most %ux MSAA; rendering at %ux instead of %ux\n",
                     info.name.c_str(), info.max_msaa, prof.render.msaa, result.msaa_requested);
    }
    if (telemetry) {
        telemetry->start(make_hello(opts, result));
        telemetry->event(wire::EventKind::info, describe(result.logon));
        if (info.software)
            telemetry->event(wire::EventKind::software_fallback,
                             info.name + " (" + info.driver_name + ") is a software renderer");
    }
    if (info.software) {
        if (!opts.allow_software)
            throw ExitError(exit_code::software_fallback,
                            "device " + info.name + " (" + info.driver_name +
                                ") is a software renderer and this session may not use one (--no-software, or its run's "
                                "plan without allow_software = true in [run]); pick a GPU with --device or check that "
                                "its Vulkan driver is installed");
        warn_software(info);
    }
    std::vector<const char*> dev_ext;
    if (window) dev_ext.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    Device device(instance.handle(), info, dev_ext);

    RenderSettings rs;
    rs.width = prof.render.width;
    rs.height = prof.render.height;
    rs.msaa = prof.render.msaa;
    rs.watermark_cell = opts.watermark_cell;
    if (!opts.reference_dir.empty() || opts.reference_keep) rs.reference_every = opts.reference_every;
    std::unique_ptr<Presenter> presenter;
    if (window) presenter = std::make_unique<Presenter>(instance.handle(), device, *window, VkExtent2D{rs.width, rs.height});
    // Declared before the renderer: its watcher thread writes here until joined.
    FrameLog log(with_telemetry(std::move(on_frame), telemetry), /*present_at_fence=*/!window);
    if (stopped_in_setup(result)) return result;
    Renderer renderer(device, model ? SceneInput(*model) : SceneInput(assembly), rs);
    tick(telemetry);
    if (stopped_in_setup(result)) return result;  // before the warm-up frame, which may take seconds
    if (presenter) renderer.set_present_hook(presenter.get());
    if (!opts.reference_dir.empty() || opts.reference_keep)
        renderer.on_reference(reference_writer(opts.reference_dir, opts.reference_keep));
    const float aspect = float(rs.width) / float(rs.height);

    Interaction ui(assembly, prof.render.mode, prof.scene.seed, aspect);
    {
        // The screenshot frame doubles as warm-up: first-use costs stay out of the measurements.
        Interaction home(assembly, DisplayMode::shaded_edges, prof.scene.seed, aspect);
        auto pixels = renderer.capture(home.params(aspect));
        result.model_open_s = double(now_ns() - t_start) * 1e-9;  // capture() returned after the frame's fence
        if (telemetry) {
            char ms[64];
            std::snprintf(ms, sizeof ms, "%.3f", result.model_open_s * 1e3);
            telemetry->event(wire::EventKind::model_open, ms);
        }
        if (!opts.screenshot.empty()) image::write_png(opts.screenshot, rs.width, rs.height, pixels);
    }
    tick(telemetry);
    if (stopped_in_setup(result)) return result;

    const double cpu0 = process_cpu_seconds();
    if (opts.bare) {
        // Harness off: the same scene and view, no script, clock reads or records.
        const int64_t t0 = now_ns();
        FrameParams p = ui.params(aspect);
        for (uint64_t i = 0; i < opts.bare_frames; ++i) renderer.submit(p, i);
        renderer.drain();
        result.wall_s = double(now_ns() - t0) * 1e-9;
        result.cpu_s = process_cpu_seconds() - cpu0;
        result.validation_messages = instance.validation_messages();
        return result;
    }

    VulkanSink sink(renderer, window.get());
    PlayResult played = play_script(prof, ui, sink, log, play_options(opts, prof, telemetry, log, aspect));
    finish(result, log, played, cpu0);
    result.validation_messages = instance.validation_messages();
    return result;
}

std::string format_summary(const SessionResult& r) {
    const auto& s = r.summary;
    const auto& d = r.device;
    // A figure with no frames behind it prints as n/a, never "nan" or a made-up 0.
    auto num = [](double v, int decimals) {
        if (!std::isfinite(v)) return std::string("n/a");
        char b[32];
        std::snprintf(b, sizeof b, "%.*f", decimals, v);
        return std::string(b);
    };
    auto ms = [&](double v) { return num(v, 2); };
    auto fps = [&](double v) { return num(v, 1); };
    std::string msaa_note =
        r.msaa_requested ? " (" + std::to_string(r.msaa_requested) + " requested, not supported)" : std::string();
    char buf[2048];
    std::snprintf(buf, sizeof buf,
                  "session    %s (%s), %" PRIu64 " parts, %" PRIu64 " triangles, %ux%u msaa %u%s\n"
                  "device     %s [%s, %s], driver %s %s%s\n"
                  "frames     %" PRIu64 " in %.1f s active (%.1f s wall), dropped %" PRIu64 "\n"
                  "FPS        %s   (frames / real active time)\n"
                  "interval   p50 %s ms  p95 %s ms  p99 %s ms   (present to present, nearest rank, within active "
                  "stretches)\n"
                  "1%% low     %s FPS   (seatmark: 1000 / p99 interval); MangoHud 1%% min %s FPS (mean FPS of the "
                  "slowest 1 %% of frames); time-weighted %s FPS\n"
                  "stutter    %s %%   (frames with interval > 2.5 x median)\n"
                  "latency    p95 %s ms   (scripted input -> fence of the first frame showing it)\n"
                  "cpu / gpu  p50 %s ms / %s ms   (begin -> submit returned / Vulkan timestamps)\n",
                  r.profile.name.c_str(), r.profile.source.c_str(), r.scene_parts, r.scene_triangles,
                  r.profile.render.width, r.profile.render.height, r.profile.render.msaa, msaa_note.c_str(),
                  d.name.c_str(), d.type.c_str(), d.vendor.c_str(), d.driver_name.c_str(), d.driver_info.c_str(),
                  d.software ? "  ** SOFTWARE RENDERER **" : "", s.frames, s.active_s, r.wall_s, s.dropped,
                  fps(s.fps).c_str(), ms(s.p50_ms).c_str(), ms(s.p95_ms).c_str(), ms(s.p99_ms).c_str(),
                  fps(s.low1_fps).c_str(), fps(s.low1_min_fps).c_str(), fps(s.low1_tw_fps).c_str(),
                  num(s.stutter * 100.0, 2).c_str(), ms(s.latency_p95_ms).c_str(), ms(s.cpu_p50_ms).c_str(),
                  ms(s.gpu_p50_ms).c_str());
    char open_line[512];
    std::snprintf(open_line, sizeof open_line, "model open %.3f s   (session start -> first frame showing %s)\n",
                  r.model_open_s, r.model.empty() ? "the procedural assembly" : r.model.c_str());
    return std::string(buf) + open_line + describe(r.logon) + "\n";
}

void write_frames_csv(const std::string& path, const std::vector<FrameRecord>& frames) {
    std::ostringstream f;  // written whole by the one output writer; "\n" is LF on Windows too
    f << "seq,t_begin_ns,t_present_ns,cpu_ns,gpu_ns,interval_ns,begin_interval_ns,latency_ns,stretch,mode,flags\n";
    for (const auto& r : frames) {
        f << r.seq << ',' << r.t_begin_ns << ',' << r.t_present_ns << ',' << r.cpu_ns << ',' << r.gpu_ns << ','
          << r.interval_ns << ',' << r.begin_interval_ns << ',' << r.latency_ns << ',' << r.stretch << ',' << workloads::to_string(static_cast<DisplayMode>(r.mode)) << ','
          << r.flags << '\n';
    }
    write_output_file(path, f.str(), "--out");
}

}  // namespace seatmark::client
