#include "client/renderer.h"

#include <cstring>

#include "client/vk_check.h"
#include "common/clock.h"
#include "common/errors.h"
#include "workloads/profile.h"
#include "core/watermark.h"

namespace seatmark::client {

namespace {

constexpr VkFormat color_format = VK_FORMAT_R8G8B8A8_UNORM;
constexpr uint32_t edge_rgba = 0xff262626;  // near-black, R in the low byte

VkFormat pick_depth_format(VkPhysicalDevice pd) {
    for (VkFormat f : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D16_UNORM}) {
        VkFormatProperties p;
        vkGetPhysicalDeviceFormatProperties(pd, f, &p);
        if (p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) return f;
    }
    throw VulkanError(VK_ERROR_FORMAT_NOT_SUPPORTED, "no depth format");
}

VkImageAspectFlags depth_aspect(VkFormat f) {
    return f == VK_FORMAT_D24_UNORM_S8_UINT ? VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT
                                            : VK_IMAGE_ASPECT_DEPTH_BIT;
}

VkSampleCountFlagBits sample_bits(const Device& dev, uint32_t msaa) {
    const auto& lim = dev.properties().limits;
    VkSampleCountFlags ok = lim.framebufferColorSampleCounts & lim.framebufferDepthSampleCounts;
    auto bit = static_cast<VkSampleCountFlagBits>(msaa);
    if (!workloads::valid_msaa(msaa)) throw InputError("msaa " + std::to_string(msaa) + ": expected 1, 2, 4, ... 64");
    if (!(ok & bit)) {
        uint32_t max = 1;
        for (uint32_t s : {2u, 4u, 8u, 16u, 32u, 64u})
            if (ok & s) max = s;
        throw InputError("msaa " + std::to_string(msaa) + ": " + dev.info().name + " supports at most " +
                         std::to_string(max) + " samples; choose --msaa " + std::to_string(max) + " or lower");
    }
    return bit;
}

CommandPool make_pool(const Device& dev) {
    VkCommandPoolCreateInfo ci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    ci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    ci.queueFamilyIndex = dev.queue_family();
    VkCommandPool p;
    vk_check(vkCreateCommandPool(dev.handle(), &ci, nullptr, &p), "vkCreateCommandPool");
    return CommandPool(dev.handle(), p);
}

}  // namespace

Renderer::Renderer(const Device& dev, SceneInput scene, const RenderSettings& settings)
    : dev_(dev),
      settings_(settings),
      extent_{settings.width, settings.height},
      samples_(sample_bits(dev, settings.msaa)),
      pool_(make_pool(dev)),
      scene_(dev, pool_, scene) {
    const auto& lim = dev.properties().limits;
    if (settings.width > lim.maxFramebufferWidth || settings.height > lim.maxFramebufferHeight)
        throw InputError("resolution " + std::to_string(settings.width) + "x" + std::to_string(settings.height) +
                         " exceeds what " + dev.info().name + " supports (" + std::to_string(lim.maxFramebufferWidth) +
                         "x" + std::to_string(lim.maxFramebufferHeight) + ")");

    VkFormat depth_format = pick_depth_format(dev.physical());
    create_render_pass(color_format, depth_format);
    pipelines_ = std::make_unique<Pipelines>(dev, pass_, samples_, extent_);

    uint32_t n = settings.frames_in_flight;
    timestamps_ = dev.info().timestamp_valid_bits > 0;
    timestamp_period_ns_ = dev.info().timestamp_period_ns;
    uint32_t bits = dev.info().timestamp_valid_bits;
    timestamp_mask_ = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    if (timestamps_) {
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 2 * n;
        VkQueryPool q;
        vk_check(vkCreateQueryPool(dev.handle(), &qi, nullptr, &q), "vkCreateQueryPool");
        queries_ = QueryPool(dev.handle(), q);
    }

    slots_.resize(n);
    std::vector<VkCommandBuffer> cmds(n);
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = n;
    vk_check(vkAllocateCommandBuffers(dev.handle(), &ai, cmds.data()), "vkAllocateCommandBuffers");
    for (uint32_t i = 0; i < n; ++i) {
        auto& s = slots_[i];
        s.cmd = cmds[i];
        std::vector<VkImageView> views;
        if (samples_ != VK_SAMPLE_COUNT_1_BIT) {
            s.color_msaa = Image(dev, color_format, extent_, samples_,
                                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                                 VK_IMAGE_ASPECT_COLOR_BIT);
            views.push_back(s.color_msaa.view());
        }
        s.depth = Image(dev, depth_format, extent_, samples_, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                        depth_aspect(depth_format));
        s.color = Image(dev, color_format, extent_, VK_SAMPLE_COUNT_1_BIT,
                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                        VK_IMAGE_ASPECT_COLOR_BIT);
        if (samples_ != VK_SAMPLE_COUNT_1_BIT) {
            views.push_back(s.depth.view());
            views.push_back(s.color.view());
        } else {
            views.push_back(s.color.view());
            views.push_back(s.depth.view());
        }
        VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
        fi.renderPass = pass_;
        fi.attachmentCount = static_cast<uint32_t>(views.size());
        fi.pAttachments = views.data();
        fi.width = extent_.width;
        fi.height = extent_.height;
        fi.layers = 1;
        VkFramebuffer fb;
        vk_check(vkCreateFramebuffer(dev.handle(), &fi, nullptr, &fb), "vkCreateFramebuffer");
        s.framebuffer = Framebuffer(dev.handle(), fb);
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkFence f;
        vk_check(vkCreateFence(dev.handle(), &fci, nullptr, &f), "vkCreateFence");
        s.fence = Fence(dev.handle(), f);
    }
    watcher_ = std::thread([this] { watch(); });
}

Renderer::~Renderer() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (watcher_.joinable()) watcher_.join();
    vkDeviceWaitIdle(dev_.handle());
}

void Renderer::create_render_pass(VkFormat color, VkFormat depth) {
    const bool msaa = samples_ != VK_SAMPLE_COUNT_1_BIT;
    std::vector<VkAttachmentDescription> att;
    VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkAttachmentReference resolve_ref{2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};

    VkAttachmentDescription c{};
    c.format = color;
    c.samples = samples_;
    c.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;  // the background pass covers every pixel
    c.storeOp = msaa ? VK_ATTACHMENT_STORE_OP_DONT_CARE : VK_ATTACHMENT_STORE_OP_STORE;
    c.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    c.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    c.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    c.finalLayout = msaa ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    att.push_back(c);

    VkAttachmentDescription d{};
    d.format = depth;
    d.samples = samples_;
    d.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    d.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    d.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    d.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    d.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    d.finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    att.push_back(d);

    if (msaa) {
        VkAttachmentDescription r = c;
        r.samples = VK_SAMPLE_COUNT_1_BIT;
        r.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
        r.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        att.push_back(r);
    }

    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &color_ref;
    sub.pDepthStencilAttachment = &depth_ref;
    sub.pResolveAttachments = msaa ? &resolve_ref : nullptr;

    VkSubpassDependency deps[2]{};
    // The previous frame in this slot may have been read by a transfer (screenshot, window blit).
    deps[0].srcSubpass = VK_SUBPASS_EXTERNAL;
    deps[0].dstSubpass = 0;
    deps[0].srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                           VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    deps[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT;
    deps[0].srcAccessMask = 0;
    deps[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    // What the frame drew is read by transfers afterwards.
    deps[1].srcSubpass = 0;
    deps[1].dstSubpass = VK_SUBPASS_EXTERNAL;
    deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    deps[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;

    VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    ci.attachmentCount = static_cast<uint32_t>(att.size());
    ci.pAttachments = att.data();
    ci.subpassCount = 1;
    ci.pSubpasses = &sub;
    ci.dependencyCount = 2;
    ci.pDependencies = deps;
    VkRenderPass p;
    vk_check(vkCreateRenderPass(dev_.handle(), &ci, nullptr, &p), "vkCreateRenderPass");
    pass_ = RenderPass(dev_.handle(), p);
}

// Two clears of the colour attachment inside the pass (white blocks, then black), so the
// watermark costs no pipeline and lands in the MSAA target before its resolve.
void Renderer::record_watermark(VkCommandBuffer cb, uint64_t token) {
    watermark::Layout layout;
    layout.cell = static_cast<int>(settings_.watermark_cell);
    if (layout.width() > static_cast<int>(extent_.width) || layout.height() > static_cast<int>(extent_.height)) return;
    std::vector<VkClearRect> white, black;
    for (const auto& b : watermark::blocks(token, layout)) {
        VkClearRect r{{{b.x, b.y}, {static_cast<uint32_t>(b.w), static_cast<uint32_t>(b.h)}}, 0, 1};
        (b.white ? white : black).push_back(r);
    }
    for (int pass = 0; pass < 2; ++pass) {
        const auto& rects = pass == 0 ? white : black;
        if (rects.empty()) continue;
        VkClearAttachment a{};
        a.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        a.colorAttachment = 0;
        const float v = pass == 0 ? 1.0f : 0.0f;
        a.clearValue.color = {{v, v, v, 1.0f}};
        vkCmdClearAttachments(cb, 1, &a, static_cast<uint32_t>(rects.size()), rects.data());
    }
}

// The frame exactly as presented (after the watermark, before any remoting), copied beside the
// present blit; the buffer is made once per slot, on first use.
void Renderer::record_reference(VkCommandBuffer cb, Slot& s) {
    const VkDeviceSize size = VkDeviceSize(extent_.width) * extent_.height * 4;
    if (!s.reference.get())
        s.reference = Buffer(dev_, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {extent_.width, extent_.height, 1};
    vkCmdCopyImageToBuffer(cb, s.color.get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s.reference.get(), 1, &region);
    VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = s.reference.get();
    b.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &b, 0, nullptr);
}

void Renderer::record(VkCommandBuffer cb, uint32_t slot, const FrameParams& fp, uint64_t token) {
    using workloads::DisplayMode;
    auto& s = slots_[slot];
    if (timestamps_) {
        vkCmdResetQueryPool(cb, queries_, slot * 2, 2);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, slot * 2);
    }
    VkClearValue clears[3]{};
    clears[1].depthStencil = {1.0f, 0};
    VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    bi.renderPass = pass_;
    bi.framebuffer = s.framebuffer;
    bi.renderArea = {{0, 0}, extent_};
    bi.clearValueCount = samples_ != VK_SAMPLE_COUNT_1_BIT ? 3 : 2;
    bi.pClearValues = clears;
    vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);

    const auto& p = *pipelines_;
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p.background);
    vkCmdDraw(cb, 3, 1, 0, 0);

    PushConstants pc{};
    pc.view_proj = fp.view_proj;
    pc.light_dir = glm::vec4(fp.view_dir, 0);
    pc.edge_rgba = edge_rgba;
    pc.selected = fp.selected_part;
    if (fp.mode == DisplayMode::section) {
        pc.flags |= push_flag_section;
        pc.section = glm::vec4(1, 0, 0, fp.section_offset);
    }
    if (fp.mode == DisplayMode::selection) pc.flags |= push_flag_selection;
    vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof pc, &pc);

    VkBuffer vbs[2] = {scene_.vertices(), scene_.instances()};
    VkDeviceSize offs[2] = {0, 0};
    vkCmdBindVertexBuffers(cb, 0, 2, vbs, offs);
    vkCmdBindIndexBuffer(cb, scene_.indices(), 0, VK_INDEX_TYPE_UINT32);

    auto draw_triangles = [&](VkPipeline pipe) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
        for (const auto& d : scene_.draws())
            if (d.index_count && d.instance_count)
                vkCmdDrawIndexed(cb, d.index_count, d.instance_count, d.first_index, d.vertex_offset, d.first_instance);
    };
    auto draw_edges = [&](VkPipeline pipe) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
        for (const auto& d : scene_.draws())
            if (d.edge_count && d.instance_count)
                vkCmdDrawIndexed(cb, d.edge_count, d.instance_count, d.first_edge, d.vertex_offset, d.first_instance);
    };
    switch (fp.mode) {
        case DisplayMode::shaded: draw_triangles(p.fill); break;
        case DisplayMode::shaded_edges:
        case DisplayMode::selection:
            draw_triangles(p.fill);
            draw_edges(p.edges);
            break;
        case DisplayMode::wireframe: draw_edges(p.edges_xray); break;
        case DisplayMode::hidden_line:
            draw_triangles(p.depth_only);
            draw_edges(p.edges);
            break;
        case DisplayMode::section:
            draw_triangles(p.fill_two_sided);
            draw_edges(p.edges);
            break;
    }
    if (settings_.watermark_cell > 0) record_watermark(cb, token);
    vkCmdEndRenderPass(cb);
    if (present_) present_->record_blit(cb, s.color.get(), extent_);
    if (timestamps_) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, slot * 2 + 1);
}

void Renderer::rethrow_fault() {
    if (fault_) std::rethrow_exception(fault_);
}

void Renderer::wait_for_slot() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !slots_[next_slot_].busy || fault_; });
    rethrow_fault();
}

Submitted Renderer::submit(const FrameParams& params, uint64_t token) {
    wait_for_slot();
    uint32_t slot = next_slot_;
    auto& s = slots_[slot];
    VkFence fence = s.fence;
    vk_check(vkResetFences(dev_.handle(), 1, &fence), "vkResetFences");

    VkSemaphore wait = present_ ? present_->acquire(slot) : VK_NULL_HANDLE;
    PresentHook* hook = wait ? present_ : nullptr;
    PresentHook* saved = present_;
    present_ = hook;  // record the blit only when an image was acquired
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk_check(vkBeginCommandBuffer(s.cmd, &bi), "vkBeginCommandBuffer");
    record(s.cmd, slot, params, token);
    s.reference_taken = settings_.reference_every && reference_cb_ && token % settings_.reference_every == 0;
    if (s.reference_taken) record_reference(s.cmd, s);
    vk_check(vkEndCommandBuffer(s.cmd), "vkEndCommandBuffer");
    present_ = saved;

    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSemaphore signal = VK_NULL_HANDLE;
    if (hook) {
        si.waitSemaphoreCount = 1;
        si.pWaitSemaphores = &wait;
        si.pWaitDstStageMask = &wait_stage;
        signal = hook->render_done(slot);
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &signal;
    }
    si.commandBufferCount = 1;
    si.pCommandBuffers = &s.cmd;
    vk_check(vkQueueSubmit(dev_.queue(), 1, &si, fence), "vkQueueSubmit");
    Submitted out;
    out.submitted_ns = now_ns();
    {
        std::lock_guard<std::mutex> lock(mu_);
        s.busy = true;
        pending_.push_back({slot, token});
    }
    cv_.notify_all();
    if (hook && hook->present(slot)) out.presented_ns = now_ns();
    next_slot_ = (slot + 1) % static_cast<uint32_t>(slots_.size());
    return out;
}

void Renderer::watch() {
    for (;;) {
        Pending p;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [&] { return !pending_.empty() || stop_; });
            if (pending_.empty()) return;  // stop_ and nothing left in flight
            p = pending_.front();
        }
        VkFence fence = slots_[p.slot].fence;
        VkResult r = vkWaitForFences(dev_.handle(), 1, &fence, VK_TRUE, UINT64_MAX);
        FrameDone done;
        done.token = p.token;
        done.fence_ns = now_ns();
        try {
            vk_check(r, "vkWaitForFences");
            if (timestamps_) {
                uint64_t ts[2] = {0, 0};
                VkResult qr = vkGetQueryPoolResults(dev_.handle(), queries_, p.slot * 2, 2, sizeof ts, ts,
                                                    sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
                if (qr == VK_SUCCESS) {
                    uint64_t ticks = (ts[1] - ts[0]) & timestamp_mask_;
                    done.gpu_ns = static_cast<int64_t>(static_cast<double>(ticks) * timestamp_period_ns_);
                } else if (qr != VK_NOT_READY) {
                    vk_check(qr, "vkGetQueryPoolResults");
                }
            }
            if (done_cb_) done_cb_(done);
            auto& slot = slots_[p.slot];
            if (slot.reference_taken && reference_cb_)
                reference_cb_(p.token, static_cast<const uint8_t*>(slot.reference.map()), extent_.width, extent_.height);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mu_);
            fault_ = std::current_exception();
            pending_.clear();
            for (auto& s : slots_) s.busy = false;
            cv_.notify_all();
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            pending_.pop_front();
            slots_[p.slot].busy = false;
        }
        cv_.notify_all();
    }
}

void Renderer::drain() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return pending_.empty() || fault_; });
    rethrow_fault();
}

std::vector<uint8_t> Renderer::capture(const FrameParams& params, uint64_t token) {
    drain();
    const uint32_t slot = 0;
    VkDeviceSize size = VkDeviceSize(extent_.width) * extent_.height * 4;
    Buffer readback(dev_, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    PresentHook* saved = present_;
    present_ = nullptr;
    one_shot(dev_, pool_, [&](VkCommandBuffer cb) {
        record(cb, slot, params, token);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {extent_.width, extent_.height, 1};
        vkCmdCopyImageToBuffer(cb, slots_[slot].color.get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.get(), 1,
                               &region);
        VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
        b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.buffer = readback.get();
        b.size = VK_WHOLE_SIZE;
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &b, 0,
                             nullptr);
    });
    present_ = saved;
    std::vector<uint8_t> pixels(size);
    std::memcpy(pixels.data(), readback.map(), size);
    return pixels;
}

}  // namespace seatmark::client
