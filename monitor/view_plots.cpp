// The plots: the selected session's frame intervals (min/max per pixel), and the
// run's p95 and FPS over time with step bands, and host CPU / memory / GPU.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "monitor/views.h"

namespace seatmark::monitor {

namespace {

using core::LiveHistoryPoint;

template <class F>
double max_of(const std::vector<LiveHistoryPoint>& h, const XRange& x, F f) {
    double m = 0;
    for (const auto& p : h)
        if (p.t_s >= x.x0 && p.t_s <= x.x1 && std::isfinite(f(p))) m = std::max(m, f(p));
    return m;
}

}  // namespace

void draw_session_plot(UiState& ui, const MonitorData& d, ImVec2 size) {
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0, 0, 0, 0));  // the plot draws its own background
    ImGui::BeginChild("session-plot", size, false, ImGuiWindowFlags_NoScrollbar);
    ImGui::PopStyleColor();
    auto shown = shown_session(ui, d);
    const core::LiveSession* s = nullptr;
    for (const auto& x : d.state.sessions)
        if (shown && x.id == *shown && (d.link == Link::file || x.host.empty() || x.host == d.state.host)) s = &x;
    if (!s) {
        if (ui.selected && !ui.selected_host.empty() && ui.selected_host != d.state.host && d.link != Link::file)
            ImGui::TextDisabled("Session %u on %s: its frames stay on that host during the run (rank 0 serves its own "
                                "sessions' only); open the merged .db afterwards.", *ui.selected, ui.selected_host.c_str());
        else
            ImGui::TextDisabled("Click a session to see its frame intervals.");
        ImGui::EndChild();
        return;
    }
    ImGui::Text("Session %u", s->id);
    ImGui::SameLine();
    ImGui::TextDisabled("%s  ·  %s%s", s->profile.c_str(), s->state.c_str(),
                        ui.selected ? "" : "  ·  (worst p95 now; click a tile to choose)");
    char fps[16] = "-", p95[16] = "-", cpu[16] = "-", line[256];
    if (std::isfinite(s->fps)) std::snprintf(fps, sizeof fps, "%.0f", s->fps);
    if (std::isfinite(s->p95_ms)) std::snprintf(p95, sizeof p95, "%.1f", s->p95_ms);
    if (std::isfinite(s->cpu_pct)) std::snprintf(cpu, sizeof cpu, "%.0f", s->cpu_pct);
    std::snprintf(line, sizeof line, "FPS %s   p95 %s ms   CPU %s %%   %s   %s", fps, p95, cpu,
                  s->rss_bytes ? bytes_text(double(*s->rss_bytes)).c_str() : "", s->device.c_str());
    if (s->state == "running")
        ImGui::TextDisabled("%s", line);
    else
        ImGui::TextDisabled("%llu frames received, %s", static_cast<unsigned long long>(s->frames), s->device.c_str());

    const FrameSeries* f = d.frames && d.frames->session == s->id ? d.frames.get() : nullptr;
    double t0 = 0, t1 = std::max(1.0, d.t_end_s);
    if (f && !f->t_s.empty()) {
        t0 = f->t_s.front();
        t1 = std::max(f->t_s.back(), t0 + 1);
    }
    ui.frames_x.fit(t0, t1);
    // y: the visible maximum, so a spike is never clipped; at least the SLA bound.
    double ymax = std::isfinite(d.sla_p95_ms) ? d.sla_p95_ms * 1.2 : 40;
    if (f) {
        auto a = std::lower_bound(f->t_s.begin(), f->t_s.end(), ui.frames_x.x0);
        auto b = std::upper_bound(f->t_s.begin(), f->t_s.end(), ui.frames_x.x1);
        for (auto i = size_t(a - f->t_s.begin()); i < size_t(b - f->t_s.begin()); ++i)
            if (std::isfinite(f->interval_ms[i])) ymax = std::max(ymax, double(f->interval_ms[i]));
    }
    char title[96];
    std::snprintf(title, sizeof title, "Frame interval (ms), all %zu frames, min/max per pixel", f ? f->t_s.size() : size_t(0));
    Plot p("##frames", title, ImVec2(size.x, ImGui::GetContentRegionAvail().y), ui.frames_x, 0,
           nice_ceiling(ymax * 1.05, 10), "ms");
    p.bands(d.bands);
    if (std::isfinite(d.sla_p95_ms)) p.hline(d.sla_p95_ms, colour::sla_line, "SLA p95");
    if (f)
        p.line("interval", colour::interval, f->t_s.data(), f->t_s.size(),
               [&](size_t i) { return double(f->interval_ms[i]); }, 1);
    if (d.link == Link::file) p.vline(d.t_now_s, colour::rgba(255, 255, 255, 160));
    ImGui::EndChild();
}

void draw_run_plots(UiState& ui, const MonitorData& d, float width, float plot_height) {
    const auto& h = d.history;
    std::vector<double> t(h.size());
    for (size_t i = 0; i < h.size(); ++i) t[i] = h[i].t_s;
    ui.run_x.fit(h.empty() ? 0 : h.front().t_s, std::max(d.t_end_s, h.empty() ? 1.0 : h.back().t_s));
    auto cursor = [&](Plot& p) {
        if (d.link == Link::file) p.vline(d.t_now_s, colour::rgba(255, 255, 255, 160));
    };
    {
        double ymax = max_of(h, ui.run_x, [](const LiveHistoryPoint& p) { return p.p95_worst_ms; });
        if (std::isfinite(d.sla_p95_ms)) ymax = std::max(ymax, d.sla_p95_ms * 1.15);
        Plot p("##p95", "p95 frame interval (ms) over sessions, last 3 s", ImVec2(width, plot_height), ui.run_x, 0,
               nice_ceiling(ymax * 1.05, 10), "ms");
        p.bands(d.bands);
        if (std::isfinite(d.sla_p95_ms)) p.hline(d.sla_p95_ms, colour::sla_line, "SLA");
        p.line("worst", colour::p95_worst, t.data(), t.size(), [&](size_t i) { return h[i].p95_worst_ms; }, 2, 2);
        p.line("median", colour::p95_median, t.data(), t.size(), [&](size_t i) { return h[i].p95_median_ms; }, 2, 2);
        cursor(p);
    }
    {
        double ymax = max_of(h, ui.run_x, [](const LiveHistoryPoint& p) { return p.fps_median; });
        Plot p("##fps", "FPS per session (frames / active time)", ImVec2(width, plot_height), ui.run_x, 0,
               nice_ceiling(ymax * 1.1, 10), "FPS");
        p.bands(d.bands);
        p.line("median", colour::fps_median, t.data(), t.size(), [&](size_t i) { return h[i].fps_median; }, 2, 2);
        p.line("slowest", colour::fps_min, t.data(), t.size(), [&](size_t i) { return h[i].fps_min; }, 1, 2);
        cursor(p);
    }
    {
        std::string title = "Host CPU and memory (%), GPU (" +
                            (d.state.gpu_backend.empty() ? std::string("none") : d.state.gpu_backend) + ")";
        Plot p("##host", title.c_str(), ImVec2(width, plot_height), ui.run_x, 0, 100, "%");
        p.bands(d.bands);
        p.line("CPU", colour::cpu, t.data(), t.size(), [&](size_t i) { return h[i].host_cpu_pct; }, 2, 2);
        p.line("memory", colour::mem, t.data(), t.size(),
               [&](size_t i) { return 100 * h[i].host_mem_used_bytes / h[i].host_mem_total_bytes; }, 2, 2);
        bool gpu = false;
        for (const auto& x : h) gpu = gpu || std::isfinite(x.gpu_util_pct);
        if (gpu) p.line("GPU", colour::gpu, t.data(), t.size(), [&](size_t i) { return h[i].gpu_util_pct; }, 2, 2);
        cursor(p);
    }
}

}  // namespace seatmark::monitor
