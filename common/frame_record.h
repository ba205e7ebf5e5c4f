#pragma once
// One rendered frame, as docs/design.md "Metrics, defined once" defines its fields.
// Shared by the session (producer), the wire protocol, the store and the report.
#include <cstdint>

namespace seatmark {

enum FrameFlag : uint16_t {
    frame_flag_none = 0,
    frame_flag_input = 1 << 0,         // first frame that shows a scripted input event
    frame_flag_mode_switch = 1 << 1,   // first frame after a display-mode switch
    frame_flag_stretch_start = 1 << 2, // first frame of an active stretch (after a think pause): no interval
};

struct FrameRecord {
    uint64_t seq = 0;         // per-session sequence number, from 0, no gaps unless frames were lost
    int64_t t_begin_ns = 0;   // steady clock (CLOCK_MONOTONIC) at frame begin
    int64_t cpu_ns = 0;       // frame begin -> vkQueueSubmit returned
    int64_t gpu_ns = -1;      // timestamp delta top..bottom of the command buffer x timestampPeriod; -1 if unavailable
    // What the SLA judges: t_present - previous t_present within one active stretch (never across a
    // think pause); -1 for a stretch's first frame. Present-to-present is what a user sees and what
    // frame-time loggers stamping vkQueuePresentKHR (MangoHud) measure; under a frame cap the begins
    // keep the cap's timetable while the presents wander with load, so begin-to-begin would flatter.
    int64_t interval_ns = -1;
    int64_t begin_interval_ns = -1;  // t_begin - previous t_begin in the same stretch; -1 on its first frame
    int64_t t_present_ns = 0;        // steady clock when the frame was presented: vkQueuePresentKHR returned
                                     // (--window), its fence signalled (headless), or the synthetic frame's end
    int64_t latency_ns = -1;  // oldest scripted input event shown by this frame -> its fence signalled; -1 if none
    uint32_t stretch = 0;     // active stretch index: increments after every think pause
    uint16_t mode = 0;        // workloads::DisplayMode as integer
    uint16_t flags = 0;       // FrameFlag bits
};

}  // namespace seatmark
