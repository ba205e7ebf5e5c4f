#pragma once
// The synthetic user's viewport state as the script drives it: camera, display
// mode, section plane, selection. Active segments move it continuously from the
// state at their start (so a frame's view depends on time, not on frame rate).
#include <cstdint>

#include "client/camera.h"
#include "client/frame_params.h"
#include "workloads/assembly.h"
#include "workloads/profile.h"

namespace seatmark::client {

class Interaction {
public:
    Interaction(const workloads::Assembly& assembly, workloads::DisplayMode start_mode, uint64_t seed,
                float aspect = 4.0f / 3.0f);

    // Called at an active segment's start; later calls of at() are relative to it.
    void begin_segment(const workloads::Segment& seg, uint32_t iteration);
    // The state `elapsed_s` into the current active segment.
    void at(double elapsed_s);
    // Ends the current active segment at its full length (so the next segment
    // starts where this one ended, whatever frame rate was reached).
    void end_segment(double length_s);
    // Mode switch or selection; returns true when the display mode changed.
    bool apply_instant(const workloads::Segment& seg);

    FrameParams params(float aspect) const;
    workloads::DisplayMode mode() const;  // effective (a section sweep shows section mode)
    const Camera& camera() const { return cam_; }
    const Camera& home() const { return home_; }

private:
    void clamp();
    const workloads::Assembly& assembly_;
    Camera home_, cam_, seg_start_cam_;
    workloads::Segment seg_{};
    uint32_t iteration_ = 0;
    bool sweeping_ = false;
    workloads::DisplayMode mode_;
    float section_offset_ = 0;
    uint32_t selected_ = 0;
    uint64_t select_count_ = 0;
    uint64_t seed_;
};

}  // namespace seatmark::client
