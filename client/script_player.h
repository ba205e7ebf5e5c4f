#pragma once
// Plays a profile's interaction script on a frame sink: the one session loop, whether
// the frames go to Vulkan or to the synthetic sink. It walks the timeline as it plays
// (memory does not grow with the duration), paces a frame cap on absolute deadlines,
// renders nothing during think pauses, measures the real active time (FPS = frames /
// that), and stops within one frame of the session's duration.
#include <cstdint>
#include <functional>

#include "client/frame_log.h"
#include "client/frame_sink.h"
#include "client/interaction.h"
#include "workloads/profile.h"

namespace seatmark::client {

struct PlayOptions {
    double duration_s = 0;  // the session's length (the profile's default_duration_s after --duration)
    double cap_hz = 0;      // frame cap (0: uncapped); --synthetic-fps is one too
    float aspect = 4.0f / 3.0f;
    std::function<bool()> stop;  // a stop request (signal); checked at least every 20 ms while waiting
    std::function<void()> tick;  // render-loop progress (heartbeats); may throw to end the session
};

struct PlayResult {
    double wall_s = 0;    // script start -> last frame completed
    double active_s = 0;  // real time in active stretches, first begin -> last frame completed
    bool closed = false;  // the window was closed
    bool stopped = false; // a stop request ended it early
};

// The log must have been made with present_at_fence == !sink.presents().
PlayResult play_script(const workloads::Profile& profile, Interaction& ui, FrameSink& sink, FrameLog& log,
                       const PlayOptions& opts);

}  // namespace seatmark::client
