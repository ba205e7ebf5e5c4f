#pragma once
// A CAD viewport camera: orbits about a target, pans, zooms; framed on the
// assembly's bounds. State is a pure function of script time (see camera_path.h).
#include <glm/glm.hpp>

#include "workloads/mesh.h"

namespace seatmark::client {

struct Camera {
    glm::vec3 target{0};
    float distance = 1;
    float yaw_deg = 35;     // about the world up axis (+y)
    float pitch_deg = 25;   // above the horizon
    float fov_deg = 40;     // vertical field of view
    float radius = 1;       // bounding-sphere radius of what is framed (near/far, pan scale)

    // Frames the bounds from the standard CAD isometric-ish direction: the
    // closest distance at which all eight box corners fit the view at `aspect`.
    static Camera framing(const workloads::Bounds& b, float aspect = 4.0f / 3.0f);

    glm::vec3 eye() const;
    glm::vec3 forward() const;  // unit vector from eye towards target
    glm::mat4 view() const;
    glm::mat4 projection(float aspect) const;  // Vulkan clip space: y down, depth 0..1
};

}  // namespace seatmark::client
