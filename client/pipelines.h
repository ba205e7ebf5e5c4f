#pragma once
// The graphics pipelines the display modes are built from. Created once per
// session (fixed size and sample count), so no pipeline is built mid-run.
#include "client/vk_resources.h"

namespace seatmark::client {

struct Pipelines {
    Pipelines(const Device& dev, VkRenderPass pass, VkSampleCountFlagBits samples, VkExtent2D extent);

    PipelineLayout layout;
    Pipeline background;     // full-screen gradient, no depth
    Pipeline fill;           // shaded triangles, back faces culled, depth-biased back so edges win
    Pipeline fill_two_sided; // section mode: cut solids show their insides
    Pipeline depth_only;     // hidden-line: lays down depth, writes no colour
    Pipeline edges;          // feature edges, depth-tested against the fill
    Pipeline edges_xray;     // wireframe: every feature edge, no depth test
};

}  // namespace seatmark::client
