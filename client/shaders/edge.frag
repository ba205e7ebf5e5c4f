#version 450
#extension GL_GOOGLE_include_directive : require
#include "push.glsl"

layout(location = 0) in vec3 v_world;
layout(location = 0) out vec4 out_color;

void main() {
    if ((pc.flags & FLAG_SECTION) != 0u && dot(pc.section.xyz, v_world) > pc.section.w) discard;
    out_color = unpackUnorm4x8(pc.edge_rgba);
}
