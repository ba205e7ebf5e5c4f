#include "client/pipelines.h"

#include <cstdint>
#include <vector>

#include "client/frame_params.h"
#include "client/gpu_scene.h"
#include "client/vk_check.h"

namespace seatmark::client {

namespace {

// SPIR-V compiled at build time by glslc (cmake/embed.cmake).
const uint32_t mesh_vert[] =
#include "shaders/mesh.vert.inc"
    ;
const uint32_t mesh_frag[] =
#include "shaders/mesh.frag.inc"
    ;
const uint32_t edge_vert[] =
#include "shaders/edge.vert.inc"
    ;
const uint32_t edge_frag[] =
#include "shaders/edge.frag.inc"
    ;
const uint32_t background_vert[] =
#include "shaders/background.vert.inc"
    ;
const uint32_t background_frag[] =
#include "shaders/background.frag.inc"
    ;

template <size_t N>
ShaderModule shader(VkDevice d, const uint32_t (&code)[N]) {
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = N * sizeof(uint32_t);
    ci.pCode = code;
    VkShaderModule m;
    vk_check(vkCreateShaderModule(d, &ci, nullptr, &m), "vkCreateShaderModule");
    return ShaderModule(d, m);
}

enum class Geometry { none, triangles, lines_position_only };

struct Spec {
    VkShaderModule vs, fs;
    Geometry geometry;
    VkCullModeFlags cull = VK_CULL_MODE_NONE;
    bool depth_test = true, depth_write = true, depth_bias = false, color_write = true;
};

Pipeline build(VkDevice d, VkPipelineLayout layout, VkRenderPass pass, VkSampleCountFlagBits samples,
               VkExtent2D extent, const Spec& s) {
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = s.vs;
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = s.fs;
    stages[1].pName = "main";

    // Binding 0: per-vertex position+normal; binding 1: per-instance transform, colour, id.
    std::vector<VkVertexInputBindingDescription> bindings;
    std::vector<VkVertexInputAttributeDescription> attrs;
    if (s.geometry != Geometry::none) {
        bindings = {{0, sizeof(workloads::Vertex), VK_VERTEX_INPUT_RATE_VERTEX},
                    {1, sizeof(InstanceData), VK_VERTEX_INPUT_RATE_INSTANCE}};
        attrs.push_back({0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(workloads::Vertex, position)});
        if (s.geometry == Geometry::triangles)
            attrs.push_back({1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(workloads::Vertex, normal)});
        for (uint32_t c = 0; c < 4; ++c)
            attrs.push_back({2 + c, 1, VK_FORMAT_R32G32B32A32_SFLOAT, static_cast<uint32_t>(c * 16)});
        if (s.geometry == Geometry::triangles) {
            attrs.push_back({6, 1, VK_FORMAT_R8G8B8A8_UNORM, offsetof(InstanceData, rgba)});
            attrs.push_back({7, 1, VK_FORMAT_R32_UINT, offsetof(InstanceData, id)});
        }
    }
    VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    vi.vertexBindingDescriptionCount = static_cast<uint32_t>(bindings.size());
    vi.pVertexBindingDescriptions = bindings.data();
    vi.vertexAttributeDescriptionCount = static_cast<uint32_t>(attrs.size());
    vi.pVertexAttributeDescriptions = attrs.data();

    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = s.geometry == Geometry::lines_position_only ? VK_PRIMITIVE_TOPOLOGY_LINE_LIST
                                                              : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;

    VkViewport viewport{0, 0, static_cast<float>(extent.width), static_cast<float>(extent.height), 0, 1};
    VkRect2D scissor{{0, 0}, extent};
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.pViewports = &viewport;
    vp.scissorCount = 1;
    vp.pScissors = &scissor;

    VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = s.cull;
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    rs.depthBiasEnable = s.depth_bias;
    // Pushes filled faces slightly back so coincident feature edges pass the depth test.
    rs.depthBiasConstantFactor = 1.0f;
    rs.depthBiasSlopeFactor = 1.0f;

    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = samples;

    VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    ds.depthTestEnable = s.depth_test;
    ds.depthWriteEnable = s.depth_write;
    ds.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;

    VkPipelineColorBlendAttachmentState cb{};
    cb.colorWriteMask = s.color_write ? (VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                         VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT)
                                      : 0;
    VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blend.attachmentCount = 1;
    blend.pAttachments = &cb;

    VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    ci.stageCount = 2;
    ci.pStages = stages;
    ci.pVertexInputState = &vi;
    ci.pInputAssemblyState = &ia;
    ci.pViewportState = &vp;
    ci.pRasterizationState = &rs;
    ci.pMultisampleState = &ms;
    ci.pDepthStencilState = &ds;
    ci.pColorBlendState = &blend;
    ci.layout = layout;
    ci.renderPass = pass;
    VkPipeline p;
    vk_check(vkCreateGraphicsPipelines(d, VK_NULL_HANDLE, 1, &ci, nullptr, &p), "vkCreateGraphicsPipelines");
    return Pipeline(d, p);
}

}  // namespace

Pipelines::Pipelines(const Device& dev, VkRenderPass pass, VkSampleCountFlagBits samples, VkExtent2D extent) {
    VkDevice d = dev.handle();
    VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(PushConstants)};
    VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    li.pushConstantRangeCount = 1;
    li.pPushConstantRanges = &range;
    VkPipelineLayout l;
    vk_check(vkCreatePipelineLayout(d, &li, nullptr, &l), "vkCreatePipelineLayout");
    layout = PipelineLayout(d, l);

    auto mv = shader(d, mesh_vert), mf = shader(d, mesh_frag);
    auto ev = shader(d, edge_vert), ef = shader(d, edge_frag);
    auto bv = shader(d, background_vert), bf = shader(d, background_frag);

    Spec bg{bv, bf, Geometry::none};
    bg.depth_test = false;
    bg.depth_write = false;
    background = build(d, layout, pass, samples, extent, bg);

    Spec f{mv, mf, Geometry::triangles, VK_CULL_MODE_BACK_BIT};
    f.depth_bias = true;
    fill = build(d, layout, pass, samples, extent, f);
    f.cull = VK_CULL_MODE_NONE;
    fill_two_sided = build(d, layout, pass, samples, extent, f);
    f.cull = VK_CULL_MODE_BACK_BIT;
    f.color_write = false;
    depth_only = build(d, layout, pass, samples, extent, f);

    Spec e{ev, ef, Geometry::lines_position_only};
    e.depth_write = false;
    edges = build(d, layout, pass, samples, extent, e);
    e.depth_test = false;
    edges_xray = build(d, layout, pass, samples, extent, e);
}

}  // namespace seatmark::client
