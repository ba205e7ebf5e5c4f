#pragma once
// What one frame shows: the camera, the display mode and its overlays. The
// session derives it from the interaction script; the renderer draws it.
#include <cstdint>

#include <glm/glm.hpp>

#include "workloads/profile.h"

namespace seatmark::client {

struct FrameParams {
    glm::mat4 view_proj{1.0f};
    glm::vec3 view_dir{0, 0, -1};      // camera forward, world space (the headlight shines along it)
    workloads::DisplayMode mode = workloads::DisplayMode::shaded_edges;
    float section_offset = 0;          // section mode: world x of the cutting plane
    uint32_t selected_part = 0;        // selection mode: highlighted part id
};

// Mirrors client/shaders/push.glsl (std430 push-constant block).
struct PushConstants {
    glm::mat4 view_proj;
    glm::vec4 section;
    glm::vec4 light_dir;
    uint32_t selected;
    uint32_t flags;
    uint32_t edge_rgba;
    uint32_t reserved;
};
static_assert(sizeof(PushConstants) == 112, "must match push.glsl");

inline constexpr uint32_t push_flag_section = 1u;
inline constexpr uint32_t push_flag_selection = 2u;

}  // namespace seatmark::client
