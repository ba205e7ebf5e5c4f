#version 450
// The grey-blue vertical gradient of CAD viewports.
layout(location = 0) in float v_t;
layout(location = 0) out vec4 out_color;
void main() {
    vec3 top = vec3(0.42, 0.48, 0.58);
    vec3 bottom = vec3(0.86, 0.88, 0.92);
    out_color = vec4(mix(top, bottom, clamp(v_t, 0.0, 1.0)), 1.0);
}
