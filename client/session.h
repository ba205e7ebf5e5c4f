#pragma once
// One synthetic CAD user: loads a profile, builds the assembly, picks a Vulkan
// device, and plays the interaction script, timing every frame.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/logon_session.h"
#include "client/vk_device.h"
#include "common/frame_record.h"
#include "core/stats.h"
#include "workloads/profile.h"

namespace seatmark::client {

class TelemetrySender;

class ReferenceKeep;

struct SessionOptions {
    std::string workload = "ci-tiny";  // built-in profile name or TOML file
    std::string profile_text;          // the profile's TOML itself (sent by the orchestrator to a joined
                                       // session); when set, `workload` only names it in messages
    double duration_s = 0;             // 0: the profile's duration
    uint32_t width = 0, height = 0;    // 0: the profile's
    uint32_t msaa = 0;                 // 0: the profile's
    std::string device;                // --device INDEX|NAME; empty: best available
    bool seed_set = false;
    uint64_t seed = 0;                 // overrides the profile's scene seed when seed_set
    std::string model;                 // --model: overrides the profile's [scene] model
    std::string out_csv;               // per-frame CSV
    std::string screenshot;            // PNG of a frame in the default mode
    bool validate = false;             // Khronos validation layer on
    bool window = false;               // present to a GLFW window
    uint32_t watermark_cell = 0;       // --watermark: endpoint watermark block size, px (0: off)
    std::string reference_dir;         // --reference-dir: sampled frames as gray PGM references (SSIM)
    uint32_t reference_every = 30;     // --reference-every: one frame in N
    std::shared_ptr<ReferenceKeep> reference_keep;  // joined: sampled references kept for the run's REF_ASK
    bool allow_software = true;        // false: exit 6 when the device is a CPU renderer
    bool quiet = false;                // no summary on stdout
    // Benchmark switch: render the same frame repeatedly without the script,
    // timing and bookkeeping (the "harness off" baseline of bench/).
    bool bare = false;
    uint64_t bare_frames = 0;
    // Telemetry to the orchestrator (`seatmark run`), see common/wire_protocol.h.
    std::string connect;      // --connect: Unix socket path; empty: no telemetry
    uint32_t session_id = 0;  // --session-id: named in HELLO
    // --synthetic-fps / --synthetic-cpu-ms: either > 0 opens no Vulkan device and renders
    // nothing; the same script player emits frames along the same timeline (think pauses,
    // stretches, modes), capped at synthetic_fps (0: uncapped), each spending
    // synthetic_cpu_ms of busy CPU on the session's thread (gpu -1). For tests, benchmarks,
    // and runs whose capacity is known in advance (the knee follows from the core count).
    double synthetic_fps = 0;
    double synthetic_cpu_ms = 0;
};

struct SessionResult {
    workloads::Profile profile;
    DeviceInfo device;
    uint64_t scene_triangles = 0;
    uint32_t msaa_requested = 0;      // set when the device lacked the profile's sample count
    uint64_t scene_parts = 0;
    std::string model;                // the pack drawn; empty: the procedural assembly
    double model_open_s = 0;          // session start -> first frame showing the scene completed (read, map, upload)
    std::vector<FrameRecord> frames;  // in sequence order, completed
    stats::FrameSummary summary;
    double wall_s = 0;                // script start -> last frame completed (never past the duration by more than a frame)
    double cpu_s = 0;                 // process CPU time over the same span (all threads)
    uint64_t validation_messages = 0;
    bool window_closed = false;       // the person closed the window early
    LogonSession logon;               // the logon (Windows: WTS session) this session runs in
};

// Applies options to the profile and checks them; throws InputError.
workloads::Profile resolve_profile(const SessionOptions& opts);

// Runs a whole session. `on_frame` (optional) sees every completed frame in
// sequence order, on the renderer's watcher thread. Throws InputError for bad
// input, VulkanError for Vulkan faults.
// `telemetry` (optional, connected): gets HELLO once the device is chosen, every
// frame, progress marks and events; the caller sends BYE. A lost connection ends
// the session with ExitError(1, "telemetry connection to PATH lost: ...").
SessionResult run_session(const SessionOptions& opts, std::function<void(const FrameRecord&)> on_frame = {},
                          TelemetrySender* telemetry = nullptr);

// The one-paragraph summary printed at the end.
std::string format_summary(const SessionResult& r);

// One CSV row per frame; the header names units.
void write_frames_csv(const std::string& path, const std::vector<FrameRecord>& frames);

}  // namespace seatmark::client
