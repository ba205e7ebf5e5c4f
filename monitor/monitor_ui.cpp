#include "monitor/monitor_ui.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "monitor/views.h"

namespace seatmark::monitor {

std::string clock_text(double s) {
    if (!std::isfinite(s) || s < 0) s = 0;
    long t = std::lround(s);
    char b[32];
    if (t >= 3600)
        std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    else
        std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
    return b;
}

std::string bytes_text(double v) {
    char b[32];
    if (!std::isfinite(v))
        return "-";
    else if (v >= double(1ull << 30))
        std::snprintf(b, sizeof b, "%.1f GiB", v / double(1ull << 30));
    else
        std::snprintf(b, sizeof b, "%.0f MiB", v / double(1ull << 20));
    return b;
}

static bool frames_here(const core::LiveSession& s, const MonitorData& d) {
    return d.link == Link::file || s.host.empty() || s.host == d.state.host;
}

std::optional<uint32_t> shown_session(UiState& ui, const MonitorData& d) {
    // Live, a pool's frames stay on their host: rank 0 serves its own sessions' frames only.
    auto find = [&](uint32_t id, const std::string* host = nullptr) -> const core::LiveSession* {
        for (const auto& s : d.state.sessions)
            if (s.id == id && (host ? host->empty() || s.host == *host : true) && frames_here(s, d)) return &s;
        return nullptr;
    };
    if (ui.selected) {
        if (find(*ui.selected, &ui.selected_host)) return ui.selected;
        for (const auto& s : d.state.sessions)
            if (s.id == *ui.selected && s.host == ui.selected_host) return std::nullopt;  // on another host
    }
    const core::LiveSession* cur = ui.auto_pick ? find(*ui.auto_pick) : nullptr;
    if (!cur || cur->state != "running") {
        // The running session with the worst p95 right now; else the last one there is.
        const core::LiveSession* worst = nullptr;
        for (const auto& s : d.state.sessions)
            if (s.state == "running" && std::isfinite(s.p95_ms) && frames_here(s, d) && (!worst || s.p95_ms > worst->p95_ms))
                worst = &s;
        if (!worst && !cur)
            for (const auto& s : d.state.sessions)
                if (frames_here(s, d)) worst = &s;
        if (worst) ui.auto_pick = worst->id;
    }
    return ui.auto_pick;
}

void draw_monitor(UiState& ui, const MonitorData& d, DataSource& src) {
    ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("seatmark monitor", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollbar);
    src.select_session(shown_session(ui, d));
    draw_header(ui, d);
    if (src.has_time_slider()) draw_time_slider(ui, d, src);

    ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float left_w = std::floor(std::max(320.0f, avail.x * 0.42f));
    const float right_w = avail.x - left_w - gap;
    // Left: the session grid over the selected session's frame intervals.
    ImGui::BeginGroup();
    float grid_h = std::floor(std::max(160.0f, avail.y * 0.52f));
    draw_sessions(ui, d, ImVec2(left_w, grid_h));
    draw_session_plot(ui, d, ImVec2(left_w, avail.y - grid_h - ImGui::GetStyle().ItemSpacing.y));
    ImGui::EndGroup();
    ImGui::SameLine();
    // Right: run-wide plots over the event log.
    ImGui::BeginGroup();
    float plot_h = std::floor(std::max(110.0f, (avail.y - 3 * ImGui::GetStyle().ItemSpacing.y) * 0.235f));
    draw_run_plots(ui, d, right_w, plot_h);
    draw_events(ui, d, ImVec2(right_w, ImGui::GetContentRegionAvail().y));
    ImGui::EndGroup();
    ImGui::End();
}

}  // namespace seatmark::monitor
