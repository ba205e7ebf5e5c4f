// The header: run and plan, connection, step k/n with a per-step progress bar,
// sessions alive/target, max density so far, elapsed; and the .db time slider.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "monitor/views.h"

namespace seatmark::monitor {

namespace {

void chip(ImDrawList* dl, ImVec2 at, const char* text, ImU32 bg, ImU32 fg, ImFont* font) {
    ImVec2 ts = font->CalcTextSizeA(font->FontSize, 1e9f, 0, text);
    dl->AddRectFilled(at, ImVec2(at.x + ts.x + 14, at.y + ts.y + 6), bg, 9);
    dl->AddText(font, font->FontSize, ImVec2(at.x + 7, at.y + 3), fg, text);
}

void card(ImDrawList* dl, ImVec2 at, const char* label, const char* value, ImU32 col, const Fonts& f) {
    dl->AddText(f.small, f.small->FontSize, at, colour::text_dim, label);
    dl->AddText(f.big, f.big->FontSize, ImVec2(at.x, at.y + 16), col, value);
}

}  // namespace

void draw_header(UiState& ui, const MonitorData& d) {
    const auto& s = d.state;
    const Fonts& f = ui.fonts;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, h = 62;
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), colour::panel, 6);  // the one filled panel: it anchors the page

    // Left: what is being watched.
    ImVec2 t(p.x + 12, p.y + 8);
    dl->AddText(f.big, f.big->FontSize, t, colour::accent, "seatmark");
    float x = t.x + f.big->CalcTextSizeA(f.big->FontSize, 1e9f, 0, "seatmark ").x;
    std::string plan = s.plan.empty() ? std::string("(no run yet)") : s.plan;
    dl->AddText(f.big, f.big->FontSize, ImVec2(x, t.y), colour::text, plan.c_str());
    x += f.big->CalcTextSizeA(f.big->FontSize, 1e9f, 0, plan.c_str()).x + 12;
    const char* link = "CONNECTING";
    ImU32 link_bg = colour::warn;
    switch (d.link) {
        case Link::connecting: break;
        case Link::live: link = "LIVE", link_bg = colour::pass; break;
        case Link::lost: link = "DISCONNECTED", link_bg = colour::fail; break;
        case Link::ended: link = "RUN ENDED", link_bg = colour::pending; break;
        case Link::file: link = "RECORDED RUN", link_bg = colour::tile_starting; break;
    }
    chip(dl, ImVec2(x, t.y + 3), link, link_bg, colour::rgba(255, 255, 255), f.small);
    std::string sub = (s.host.empty() ? std::string() : "host " + s.host + "  ·  ") + d.source;
    if (!d.link_note.empty() && d.link != Link::live) sub += "  ·  " + d.link_note;
    dl->PushClipRect(p, ImVec2(p.x + w * 0.40f, p.y + h), true);
    dl->AddText(f.small, f.small->FontSize, ImVec2(t.x, p.y + 38), colour::text_dim, sub.c_str());
    dl->PopClipRect();

    // Middle: the ramp, one segment per step.
    const float mx = p.x + w * 0.41f, mw = w * 0.30f;
    char line[160];
    if (s.steps == 0)
        std::snprintf(line, sizeof line, "waiting for a run");
    else if (s.status == "running" || s.status == "stopping")
        std::snprintf(line, sizeof line, "Step %zu of %zu  ·  %u sessions  ·  %s%s", s.step, s.steps, s.target,
                      s.phase.c_str(),
                      std::isfinite(s.phase_left_s) && s.phase_left_s > 0.5 && s.phase != "starting"
                          ? (", " + std::to_string(int(std::lround(s.phase_left_s))) + " s left").c_str()
                          : "");
    else
        std::snprintf(line, sizeof line, "%zu of %zu steps judged  ·  run %s", s.finished_steps.size(), s.steps,
                      s.status.c_str());
    dl->AddText(f.body, f.body->FontSize, ImVec2(mx, p.y + 9), colour::text, line);
    if (s.steps > 0) {
        const float gap = 3, bh = 12, by = p.y + 36;
        const float seg = (mw - gap * float(s.steps - 1)) / float(s.steps);
        for (size_t k = 0; k < s.steps; ++k) {
            float a = mx + float(k) * (seg + gap);
            ImU32 c = colour::rgba(50, 55, 66);
            for (const auto& v : s.finished_steps)
                if (v.index == k) c = v.pass ? colour::pass : colour::fail;
            bool current = k + 1 == s.step && s.finished_steps.size() <= k && s.status == "running";
            dl->AddRectFilled(ImVec2(a, by), ImVec2(a + seg, by + bh), c, 3);
            if (current) {
                dl->AddRectFilled(ImVec2(a, by), ImVec2(a + seg, by + bh), colour::rgba(94, 177, 255, 150), 3);
                dl->AddRect(ImVec2(a, by), ImVec2(a + seg, by + bh), colour::accent, 3, 0, 1.5f);
            }
        }
    }

    // Right: the figures people look for first.
    const float rx = p.x + w * 0.735f, cw = w * 0.085f;
    char v[64];
    std::snprintf(v, sizeof v, "%u / %u", s.alive, s.target);
    card(dl, ImVec2(rx, p.y + 8), "SESSIONS alive/target", v, s.alive < s.target && s.status == "running" ? colour::warn : colour::text, f);
    std::snprintf(v, sizeof v, "%u", s.max_density_so_far);
    const Tone tone = max_density_tone(s);
    card(dl, ImVec2(rx + cw * 1.25f, p.y + 8), "MAX DENSITY so far", v,
         tone == Tone::good ? colour::pass : tone == Tone::warn ? colour::warn : tone == Tone::bad ? colour::fail : colour::text, f);
    card(dl, ImVec2(rx + cw * 2.35f, p.y + 8), "ELAPSED", clock_text(s.elapsed_s).c_str(), colour::text, f);
    ImGui::Dummy(ImVec2(w, h));
}

void draw_time_slider(UiState& ui, const MonitorData& d, DataSource& src) {
    (void)ui;
    float t = float(d.t_now_s);
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("time");
    ImGui::SameLine();
    // Buttons jump between step starts.
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) {
        double to = 0;
        for (const auto& b : d.bands)
            if (b.t0_s < d.t_now_s - 0.5) to = b.t0_s;
        src.set_time(to);
    }
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) {
        double to = d.t_end_s;
        for (auto it = d.bands.rbegin(); it != d.bands.rend(); ++it)
            if (it->t0_s > d.t_now_s + 0.5) to = it->t0_s;
        src.set_time(to);
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 190);
    std::string label = clock_text(t) + " of " + clock_text(d.t_end_s);
    if (ImGui::SliderFloat("##time", &t, 0, float(std::max(d.t_end_s, 0.001)), label.c_str())) src.set_time(t);
    ImGui::SameLine();
    if (ImGui::Button("start")) src.set_time(0);
    ImGui::SameLine();
    if (ImGui::Button("end")) src.set_time(d.t_end_s);
}

}  // namespace seatmark::monitor
