#version 450
#extension GL_GOOGLE_include_directive : require
#include "push.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_model0;  // per instance: model matrix columns
layout(location = 3) in vec4 in_model1;
layout(location = 4) in vec4 in_model2;
layout(location = 5) in vec4 in_model3;
layout(location = 6) in vec4 in_color;   // per instance, R8G8B8A8_UNORM
layout(location = 7) in uint in_id;

layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec3 v_world;
layout(location = 2) out vec3 v_color;
layout(location = 3) flat out uint v_id;

void main() {
    mat4 model = mat4(in_model0, in_model1, in_model2, in_model3);
    vec4 world = model * vec4(in_position, 1.0);
    v_world = world.xyz;
    // Part transforms are rigid (rotation, translation, uniform scale), so the
    // upper 3x3 transforms normals correctly once renormalised.
    v_normal = mat3(model) * in_normal;
    v_color = in_color.rgb;
    v_id = in_id;
    gl_Position = pc.view_proj * world;
}
