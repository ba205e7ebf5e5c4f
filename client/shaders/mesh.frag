#version 450
#extension GL_GOOGLE_include_directive : require
#include "push.glsl"

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec3 v_world;
layout(location = 2) in vec3 v_color;
layout(location = 3) flat in uint v_id;
layout(location = 0) out vec4 out_color;

void main() {
    if ((pc.flags & FLAG_SECTION) != 0u && dot(pc.section.xyz, v_world) > pc.section.w) discard;
    if (!gl_FrontFacing) {
        // Only visible through a section cut (culling is off there): the solid's
        // inside, drawn in the hatch colour CAD tools use for cut faces.
        out_color = vec4(0.78, 0.22, 0.18, 1.0);
        return;
    }
    vec3 base = v_color;
    if ((pc.flags & FLAG_SELECTION) != 0u && v_id == pc.selected) base = mix(base, vec3(1.0, 0.6, 0.05), 0.75);
    vec3 n = normalize(v_normal);
    vec3 to_eye = -normalize(pc.light_dir.xyz);
    float head = max(dot(n, to_eye), 0.0);
    float sky = 0.5 + 0.5 * n.y;  // hemisphere fill from above
    // Headlight: light and eye coincide, so the half vector is to_eye itself.
    float spec = pow(head, 48.0);
    vec3 c = base * (0.18 + 0.62 * head + 0.22 * sky) + vec3(0.25) * spec;
    out_color = vec4(c, 1.0);
}
