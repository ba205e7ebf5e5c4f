#include "client/interaction.h"

#include <algorithm>
#include <cmath>

namespace seatmark::client {

using workloads::DisplayMode;
using workloads::SegmentKind;

namespace {

uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

float base_pitch(float yaw_deg) {
    // A user orbiting also tilts a little; tied to yaw so the path is continuous.
    return 25.0f + 12.0f * std::sin(glm::radians(yaw_deg) * 0.7f);
}

}  // namespace

Interaction::Interaction(const workloads::Assembly& assembly, DisplayMode start_mode, uint64_t seed, float aspect)
    : assembly_(assembly), home_(Camera::framing(assembly.bounds, aspect)), cam_(home_), mode_(start_mode), seed_(seed) {
    section_offset_ = 0.5f * (assembly.bounds.min[0] + assembly.bounds.max[0]);
    if (!assembly.parts.empty()) selected_ = assembly.parts[splitmix64(seed) % assembly.parts.size()].id;
}

void Interaction::begin_segment(const workloads::Segment& seg, uint32_t iteration) {
    seg_ = seg;
    iteration_ = iteration;
    seg_start_cam_ = cam_;
    sweeping_ = seg.kind == SegmentKind::section_sweep;
}

void Interaction::at(double t) {
    const float dt = static_cast<float>(t);
    cam_ = seg_start_cam_;
    switch (seg_.kind) {
        case SegmentKind::orbit:
            cam_.yaw_deg = seg_start_cam_.yaw_deg + static_cast<float>(seg_.rate) * dt;
            cam_.pitch_deg = base_pitch(cam_.yaw_deg);
            break;
        case SegmentKind::pan: {
            // Alternate direction each loop so a looping script stays near the model.
            float sign = (iteration_ % 2) ? -1.0f : 1.0f;
            float view_h = 2.0f * cam_.distance * std::tan(glm::radians(cam_.fov_deg) * 0.5f);
            glm::vec3 fwd = cam_.forward();
            glm::vec3 right = glm::normalize(glm::cross(fwd, glm::vec3(0, 1, 0)));
            glm::vec3 up = glm::cross(right, fwd);
            float d = sign * static_cast<float>(seg_.rate) * dt * view_h;
            cam_.target = seg_start_cam_.target + right * d + up * (0.3f * d);
            break;
        }
        case SegmentKind::zoom:
            cam_.distance = seg_start_cam_.distance / std::pow(static_cast<float>(seg_.rate), dt);
            break;
        case SegmentKind::section_sweep: {
            float lo = assembly_.bounds.min[0], hi = assembly_.bounds.max[0];
            // The plane enters from the far end and travels across the whole part.
            double phase = std::fmod(0.05 + seg_.rate * t, 1.0);
            section_offset_ = hi - static_cast<float>(phase) * (hi - lo);
            break;
        }
        default: break;
    }
    clamp();
}

void Interaction::end_segment(double length_s) {
    at(length_s);
    sweeping_ = false;
}

void Interaction::clamp() {
    // Keep a looping script from wandering off: zoom within a range of the home
    // distance, target within the (slightly grown) bounds.
    cam_.distance = std::clamp(cam_.distance, home_.distance * 0.15f, home_.distance * 3.0f);
    const auto& b = assembly_.bounds;
    for (int i = 0; i < 3; ++i) {
        float margin = 0.25f * (b.max[i] - b.min[i]);
        cam_.target[i] = std::clamp(cam_.target[i], b.min[i] - margin, b.max[i] + margin);
    }
}

bool Interaction::apply_instant(const workloads::Segment& seg) {
    DisplayMode before = mode_;
    if (seg.kind == SegmentKind::mode) {
        mode_ = seg.to;
    } else if (seg.kind == SegmentKind::select) {
        ++select_count_;
        if (!assembly_.parts.empty())
            selected_ = assembly_.parts[splitmix64(seed_ ^ (select_count_ * 0x2545f4914f6cdd1dull)) %
                                        assembly_.parts.size()]
                            .id;
        mode_ = DisplayMode::selection;
    }
    return mode_ != before;
}

DisplayMode Interaction::mode() const { return sweeping_ ? DisplayMode::section : mode_; }

FrameParams Interaction::params(float aspect) const {
    FrameParams p;
    p.view_proj = cam_.projection(aspect) * cam_.view();
    p.view_dir = cam_.forward();
    p.mode = mode();
    p.section_offset = section_offset_;
    p.selected_part = selected_;
    return p;
}

}  // namespace seatmark::client
