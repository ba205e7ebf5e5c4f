// Push constants shared by every pipeline (112 bytes; Vulkan guarantees 128).
// Mirrors client/frame_params.h PushConstants; keep the two in step.
layout(push_constant) uniform Push {
    mat4 view_proj;
    vec4 section;    // xyz: plane normal, w: offset; fragments with dot(n, p) > w are cut away
    vec4 light_dir;  // xyz: direction the headlight shines (camera forward), world space
    uint selected;   // part id highlighted in selection mode
    uint flags;      // FLAG_* below
    uint edge_rgba;  // edge colour, R in the low byte
    uint reserved;
} pc;

const uint FLAG_SECTION = 1u;
const uint FLAG_SELECTION = 2u;
