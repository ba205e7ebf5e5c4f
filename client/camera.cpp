#include "client/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace seatmark::client {

Camera Camera::framing(const workloads::Bounds& b) {
    Camera c;
    glm::vec3 lo(b.min[0], b.min[1], b.min[2]), hi(b.max[0], b.max[1], b.max[2]);
    c.target = (lo + hi) * 0.5f;
    c.radius = std::max(glm::length(hi - lo) * 0.5f, 1e-3f);
    // Distance at which the bounding sphere fits the vertical field of view, with a margin.
    c.distance = c.radius / std::sin(glm::radians(c.fov_deg) * 0.5f) * 1.05f;
    return c;
}

glm::vec3 Camera::forward() const {
    float yaw = glm::radians(yaw_deg), pitch = glm::radians(pitch_deg);
    // Eye sits at +z rotated by yaw about y and raised by pitch; forward points back at the target.
    glm::vec3 from_target(std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw));
    return -from_target;
}

glm::vec3 Camera::eye() const { return target - forward() * distance; }

glm::mat4 Camera::view() const { return glm::lookAt(eye(), target, glm::vec3(0, 1, 0)); }

glm::mat4 Camera::projection(float aspect) const {
    float near = std::max(distance - radius * 1.5f, distance * 0.01f);
    float far = distance + radius * 1.5f;
    glm::mat4 p = glm::perspectiveRH_ZO(glm::radians(fov_deg), aspect, near, far);
    p[1][1] *= -1.0f;  // Vulkan's clip space has y pointing down
    return p;
}

}  // namespace seatmark::client
