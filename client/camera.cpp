#include "client/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace seatmark::client {

Camera Camera::framing(const workloads::Bounds& b, float aspect) {
    Camera c;
    glm::vec3 lo(b.min[0], b.min[1], b.min[2]), hi(b.max[0], b.max[1], b.max[2]);
    c.target = (lo + hi) * 0.5f;
    c.radius = std::max(glm::length(hi - lo) * 0.5f, 1e-3f);
    // A flat assembly seen from above-front fills far less than its bounding
    // sphere would suggest, so fit the box corners themselves.
    glm::vec3 fwd = c.forward();
    glm::vec3 right = glm::normalize(glm::cross(fwd, glm::vec3(0, 1, 0)));
    glm::vec3 up = glm::cross(right, fwd);
    float tan_v = std::tan(glm::radians(c.fov_deg) * 0.5f), tan_h = tan_v * aspect;
    float d = 0;
    for (int i = 0; i < 8; ++i) {
        glm::vec3 p(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
        glm::vec3 r = p - c.target;
        float toward_eye = -glm::dot(r, fwd);
        d = std::max(d, toward_eye + std::abs(glm::dot(r, right)) / tan_h);
        d = std::max(d, toward_eye + std::abs(glm::dot(r, up)) / tan_v);
    }
    c.distance = std::max(d * 1.08f, c.radius * 0.5f);
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
