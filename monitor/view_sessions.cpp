// The session grid: one tile per session, coloured by state and SLA, with its FPS;
// hover for details, click to show its frame intervals.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "monitor/host_groups.h"
#include "monitor/views.h"

namespace seatmark::monitor {

ImU32 session_colour(const core::LiveSession& s) {
    if (is_failure_state(s.state)) return colour::tile_failed;
    if (s.state == "starting") return colour::tile_starting;
    if (s.state == "stopping") return colour::tile_stopping;
    if (s.state != "running") return colour::tile_ended;  // ended cleanly
    return s.sla_ok ? colour::tile_ok : colour::tile_sla;
}

namespace {

void legend_item(ImDrawList* dl, ImVec2& at, ImU32 c, const char* text, ImFont* font) {
    dl->AddRectFilled(ImVec2(at.x, at.y + 3), ImVec2(at.x + 10, at.y + 13), c, 2);
    dl->AddText(font, font->FontSize, ImVec2(at.x + 14, at.y), colour::text_dim, text);
    at.x += 14 + font->CalcTextSizeA(font->FontSize, 1e9f, 0, text).x + 12;
}

void tooltip(const core::LiveSession& s) {
    ImGui::BeginTooltip();
    if (s.host.empty()) ImGui::Text("session %u  ·  %s", s.id, s.profile.c_str());
    else ImGui::Text("session %u on %s  ·  %s", s.id, s.host.c_str(), s.profile.c_str());
    ImGui::Separator();
    ImGui::Text("state      %s%s", s.state.c_str(), s.state == "running" ? (s.sla_ok ? ", meets SLA" : ", BREAKS SLA") : "");
    if (std::isfinite(s.fps)) ImGui::Text("FPS        %.1f (last 3 s)", s.fps);
    if (std::isfinite(s.p95_ms)) ImGui::Text("p95        %.1f ms frame interval", s.p95_ms);
    ImGui::Text("frames     %llu", static_cast<unsigned long long>(s.frames));
    if (std::isfinite(s.cpu_pct)) ImGui::Text("CPU        %.0f %% of a core", s.cpu_pct);
    if (s.rss_bytes) ImGui::Text("memory     %s", bytes_text(double(*s.rss_bytes)).c_str());
    else if (!s.figures_unavailable.empty()) ImGui::Text("CPU, mem   unknown: %s", s.figures_unavailable.c_str());
    if (std::isfinite(s.gpu_share_pct))
        ImGui::Text("GPU share  %.1f %% (%s)", s.gpu_share_pct, s.gpu_share_source.c_str());
    if (s.pid) ImGui::Text("pid        %lld", static_cast<long long>(s.pid));
    if (!s.device.empty()) ImGui::Text("device     %s%s", s.device.c_str(), s.software ? " (software)" : "");
    if (const auto& e = s.endpoint) {  // what the RDP client of this session sees
        ImGui::Separator();
        ImGui::Text("RDP        %s via launcher %s, %s", e->user.c_str(), e->launcher.c_str(), e->codec.c_str());
        if (std::isfinite(e->logon_ms)) ImGui::Text("logon      %.0f ms", e->logon_ms);
        if (std::isfinite(e->fps)) ImGui::Text("endpoint   %.1f FPS arriving (last 3 s)", e->fps);
        if (std::isfinite(e->delivered_ratio)) ImGui::Text("delivered  %.0f %% of rendered frames", e->delivered_ratio * 100);
        if (std::isfinite(e->latency_p95_ms)) ImGui::Text("latency    %.1f ms p95, present -> client", e->latency_p95_ms);
        if (std::isfinite(e->ssim_mean)) ImGui::Text("SSIM       %.3f", e->ssim_mean);
        if (std::isfinite(e->bytes_per_s)) ImGui::Text("bandwidth  %s/s", bytes_text(e->bytes_per_s).c_str());
        if (e->fault != "none") ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "RDP fault  %s", e->fault.c_str());
    }
    ImGui::TextDisabled("click: show its frame intervals");
    ImGui::EndTooltip();
}

}  // namespace

void draw_sessions(UiState& ui, const MonitorData& d, ImVec2 size) {
    const auto& sessions = d.state.sessions;
    ImGui::BeginChild("sessions", size, true, ImGuiWindowFlags_NoScrollbar);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    uint32_t failed = 0, breaking = 0;
    for (const auto& s : sessions) {
        failed += is_failure_state(s.state);
        breaking += s.state == "running" && !s.sla_ok;
    }
    ImGui::Text("Sessions");
    ImGui::SameLine();
    ImGui::TextDisabled("%u alive of %zu started%s", d.state.alive, sessions.size(),
                        failed ? (", " + std::to_string(failed) + " failed").c_str() : "");
    if (breaking) {
        ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colour::warn), "%u breaking SLA", breaking);
    }
    ImVec2 lg = ImGui::GetCursorScreenPos();
    legend_item(dl, lg, colour::tile_ok, "meets SLA", ui.fonts.small);
    legend_item(dl, lg, colour::tile_sla, "breaks SLA", ui.fonts.small);
    legend_item(dl, lg, colour::tile_starting, "starting", ui.fonts.small);
    legend_item(dl, lg, colour::tile_ended, "ended", ui.fonts.small);
    legend_item(dl, lg, colour::tile_failed, "failed", ui.fonts.small);
    ImGui::Dummy(ImVec2(0, 18));

    // The largest tiles (down to 24 px wide) that let every session fit; scroll beyond that.
    // A pool run: one block per host (rank order), a line naming it above its tiles.
    const std::vector<HostGroup> groups = group_by_host(d.state);
    const bool grouped = groups.size() > 1;
    const float head = grouped ? ui.fonts.small->FontSize + 6 : 0;
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0, 0, 0, 0));  // the panel behind shows through
    ImGui::BeginChild("tiles", ImVec2(0, 0), false);
    ImGui::PopStyleColor();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = 4;
    auto rows_for = [&](int cols) {
        size_t rows = 0;
        for (const auto& g : groups) rows += (g.sessions.size() + size_t(cols) - 1) / size_t(cols);
        return rows;
    };
    float tw = 110;
    for (; tw > 24; tw -= 2) {
        float th = std::floor(tw * 0.62f);
        int cols = std::max(1, int((avail.x + gap) / (tw + gap)));
        if (float(rows_for(cols)) * (th + gap) + head * float(groups.size()) <= avail.y) break;
    }
    const float th = std::floor(tw * 0.62f);
    const int cols = std::max(1, int((avail.x + gap) / (tw + gap)));
    if (sessions.empty()) ImGui::TextDisabled(d.link == Link::connecting ? "waiting for the orchestrator..." : "no sessions yet");
    auto shown = shown_session(ui, d);
    dl = ImGui::GetWindowDrawList();
    ImVec2 origin = ImGui::GetCursorScreenPos();
    // Where each tile goes: (group, position in it) -> its row and column below the group's line.
    std::vector<ImVec2> at(sessions.size());
    float y = origin.y;
    for (const auto& g : groups) {
        if (grouped) {
            const ImU32 c = g.status == "lost" ? colour::tile_failed : colour::text_dim;
            dl->AddText(ui.fonts.small, ui.fonts.small->FontSize, ImVec2(origin.x, y + 2), c, g.label().c_str());
            y += head;
        }
        for (size_t k = 0; k < g.sessions.size(); ++k)
            at[g.sessions[k]] = ImVec2(origin.x + float(k % size_t(cols)) * (tw + gap), y + float(k / size_t(cols)) * (th + gap));
        y += float((g.sessions.size() + size_t(cols) - 1) / size_t(cols)) * (th + gap);
    }
    for (size_t i = 0; i < sessions.size(); ++i) {
        const auto& s = sessions[i];
        ImVec2 a = at[i];
        ImVec2 b(a.x + tw, a.y + th);
        ImGui::SetCursorScreenPos(a);
        ImGui::PushID(int(i));  // ids repeat across a pool's hosts
        if (ImGui::InvisibleButton("tile", ImVec2(tw, th))) {
            ui.selected = s.id;
            ui.selected_host = s.host;
        }
        bool hover = ImGui::IsItemHovered();
        ImGui::PopID();
        ImU32 c = session_colour(s);
        const float round = tw >= 60 ? 4.0f : 0.0f;  // rounded corners cost ~40 vertices a tile
        dl->AddRectFilled(a, b, c, round);
        // A bar along the bottom: FPS against 60.
        if (s.state == "running" && std::isfinite(s.fps) && th >= 30) {
            float f = std::clamp(float(s.fps / 60.0), 0.0f, 1.0f);
            dl->AddRectFilled(ImVec2(a.x + 3, b.y - 4), ImVec2(a.x + 3 + (tw - 6) * f, b.y - 2),
                              colour::rgba(255, 255, 255, 110), 1);
        }
        if (is_failure_state(s.state) && tw >= 40) {
            dl->AddLine(ImVec2(b.x - 12, a.y + 4), ImVec2(b.x - 4, a.y + 12), colour::rgba(255, 255, 255, 200), 2);
            dl->AddLine(ImVec2(b.x - 4, a.y + 4), ImVec2(b.x - 12, a.y + 12), colour::rgba(255, 255, 255, 200), 2);
        }
        ImU32 fg = s.state == "running" || is_failure_state(s.state) ? colour::rgba(255, 255, 255)
                                                                      : colour::rgba(200, 204, 212);
        char id[16], fps[32];
        std::snprintf(id, sizeof id, "%u", s.id);
        if (s.state == "running" && std::isfinite(s.fps))
            std::snprintf(fps, sizeof fps, "%.0f", s.fps);
        else if (s.state == "running" || s.state == "starting")
            std::snprintf(fps, sizeof fps, "...");
        else
            std::snprintf(fps, sizeof fps, "%s", s.state.c_str());
        ImFont* small = ui.fonts.small;
        if (tw >= 50) {
            dl->AddText(small, small->FontSize, ImVec2(a.x + 4, a.y + 2), colour::rgba(255, 255, 255, 170), id);
            ImFont* big = tw >= 64 && std::isfinite(s.fps) && s.state == "running" ? ui.fonts.big : ui.fonts.body;
            ImVec2 ts = big->CalcTextSizeA(big->FontSize, 1e9f, 0, fps);
            if (ts.x > tw - 6) {
                big = small;
                ts = big->CalcTextSizeA(big->FontSize, 1e9f, 0, fps);
            }
            dl->PushClipRect(a, b, true);
            dl->AddText(big, big->FontSize, ImVec2(a.x + (tw - ts.x) * 0.5f, b.y - ts.y - 5), fg, fps);
            dl->PopClipRect();
        } else {
            ImVec2 ts = small->CalcTextSizeA(small->FontSize, 1e9f, 0, id);
            dl->AddText(small, small->FontSize, ImVec2(a.x + (tw - ts.x) * 0.5f, a.y + (th - ts.y) * 0.5f), fg, id);
        }
        if (shown && *shown == s.id && (ui.selected_host.empty() || !ui.selected || ui.selected_host == s.host))
            dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), colour::rgba(255, 255, 255), round + 1, 0, 2);
        if (hover) {
            dl->AddRect(a, b, colour::rgba(255, 255, 255, 140), round, 0, 1);
            tooltip(s);
        }
    }
    if (!sessions.empty()) {
        ImGui::SetCursorScreenPos(ImVec2(origin.x, y));
        ImGui::Dummy(ImVec2(1, 1));
    }
    ImGui::EndChild();
    ImGui::EndChild();
}

}  // namespace seatmark::monitor
