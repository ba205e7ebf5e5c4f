#version 450
#extension GL_GOOGLE_include_directive : require
#include "push.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 2) in vec4 in_model0;
layout(location = 3) in vec4 in_model1;
layout(location = 4) in vec4 in_model2;
layout(location = 5) in vec4 in_model3;

layout(location = 0) out vec3 v_world;

void main() {
    mat4 model = mat4(in_model0, in_model1, in_model2, in_model3);
    vec4 world = model * vec4(in_position, 1.0);
    v_world = world.xyz;
    gl_Position = pc.view_proj * world;
}
