// How much CPU the session harness itself costs per frame: the script, input
// clock, frame log and bookkeeping that sit around the Vulkan work.
//
// Two measurements in one run, each against the same scene with the harness off:
//  1. whole-process CPU per frame, harness on vs. off (same frames, same view
//     path, lavapipe or GPU driver threads included), as a ratio;
//  2. the harness's own per-frame work timed alone: the real script player on the
//     synthetic sink (no Vulkan), as a share of
//     the harness-off CPU per frame.
// Goal (issue 2): under 2 %.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "client/frame_log.h"
#include "client/interaction.h"
#include "client/script_player.h"
#include "client/session.h"
#include "client/synthetic_sink.h"
#include "workloads/profile.h"
#include "common/clock.h"
#include "common/cpu_time.h"
#include "workloads/assembly.h"

using namespace seatmark;

namespace {

const char* profile_text = R"(# bench_session_overhead: one uncapped orbit over the ci-tiny scene
name = "bench-overhead"
description = "uncapped orbit for the harness overhead benchmark"
duration = "5s"
[scene]
seed = 1
triangles = 10000
[render]
width = 320
height = 240
msaa = 1
mode = "shaded-edges"
frame_cap_hz = 0
[script]
loop = true
input_rate_hz = 125
[[script.segment]]
kind = "orbit"
duration = "5s"
rate = 30
)";

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The per-frame work of the harness without any Vulkan call: the real script player
// (timeline, input clock, interaction state, frame parameters, frame log) driving the
// synthetic sink with no CPU spent per frame, uncapped, on this thread.
double harness_alone_seconds_per_frame(const std::string& profile_path) {
    auto prof = workloads::load_profile(profile_path);
    workloads::AssemblySpec spec;
    spec.seed = prof.scene.seed;
    spec.triangle_budget = prof.scene.triangles;
    auto assembly = workloads::generate_assembly(spec);
    client::Interaction ui(assembly, prof.render.mode, prof.scene.seed);
    uint64_t sink_sum = 0;
    client::SyntheticSink sink(0);
    client::FrameLog log([&](const FrameRecord& r) { sink_sum += r.seq; }, !sink.presents());
    client::PlayOptions po;
    po.duration_s = 2;
    po.cap_hz = 0;
    double c0 = thread_cpu_seconds();
    client::play_script(prof, ui, sink, log, po);
    double c = thread_cpu_seconds() - c0;
    auto frames = log.take();
    if (sink_sum == 42) std::puts("");  // keep the work observable
    return frames.empty() ? 0 : c / double(frames.size());
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    auto dir = std::filesystem::temp_directory_path() / "seatmark-bench-overhead";
    std::filesystem::create_directories(dir);
    auto profile = (dir / "bench-overhead.toml").string();
    std::ofstream(profile) << profile_text;

    std::vector<double> on_per_frame, off_per_frame;
    std::string device;
    for (int rep = 0; rep < repeats; ++rep) {
        client::SessionOptions on;
        on.workload = profile;
        on.quiet = true;
        auto a = client::run_session(on);
        device = a.device.name;
        uint64_t frames = a.frames.size();
        client::SessionOptions off = on;
        off.bare = true;
        off.bare_frames = frames;
        auto b = client::run_session(off);
        on_per_frame.push_back(a.cpu_s / double(frames));
        off_per_frame.push_back(b.cpu_s / double(frames));
        std::printf("repeat %d: %llu frames; CPU/frame harness on %.1f us, off %.1f us\n", rep + 1,
                    static_cast<unsigned long long>(frames), on_per_frame.back() * 1e6, off_per_frame.back() * 1e6);
    }
    double on = median(on_per_frame), off = median(off_per_frame);
    double alone = harness_alone_seconds_per_frame(profile);
    std::printf("\nbench_session_overhead on %s (320x240, 10k triangles, uncapped)\n", device.c_str());
    std::printf("  process CPU per frame, harness on   %8.1f us (median of %d)\n", on * 1e6, repeats);
    std::printf("  process CPU per frame, harness off  %8.1f us (same frames, same scene)\n", off * 1e6);
    std::printf("  ratio on/off                        %8.3f  (overhead %+.2f %%)\n", on / off, (on / off - 1) * 100);
    std::printf("  harness work alone per frame        %8.2f us\n", alone * 1e6);
    std::printf("  harness share of a frame's CPU      %8.3f %%  (goal < 2 %%)\n", alone / off * 100);
    std::filesystem::remove_all(dir);
    return 0;
}
