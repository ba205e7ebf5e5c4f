#version 450
// A full-screen triangle from the vertex index: no vertex buffer.
layout(location = 0) out float v_t;
void main() {
    vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    v_t = p.y * 0.5;
    gl_Position = vec4(p * 2.0 - 1.0, 1.0, 1.0);
}
