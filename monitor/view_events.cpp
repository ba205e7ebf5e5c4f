// The event log: step changes, verdicts, session ends and failures, newest last.
#include <cstdio>

#include "monitor/views.h"

namespace seatmark::monitor {

void draw_events(UiState& ui, const MonitorData& d, ImVec2 size) {
    ImGui::BeginChild("events", size, true);
    ImGui::Text("Events");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", events_summary(d.events).c_str());
    ImGui::PushFont(ui.fonts.small);
    if (ImGui::BeginTable("log", 3, ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit,
                          ImVec2(0, ImGui::GetContentRegionAvail().y))) {
        ImGui::TableSetupColumn("time", ImGuiTableColumnFlags_WidthFixed, 44);
        ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthFixed, 150);
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
        ImGuiListClipper clip;
        clip.Begin(int(d.events.size()));
        while (clip.Step())
            for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
                const auto& e = d.events[size_t(i)];
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextDisabled("%s", clock_text(e.t_s).c_str());
                ImGui::TableNextColumn();
                // Green only for a step known to have passed (EventClass), never for its kind alone.
                ImU32 c = e.bad                                  ? colour::fail
                          : e.cls == EventClass::step_pass       ? colour::pass
                          : e.kind.rfind("step", 0) == 0         ? colour::accent
                                                                 : colour::text_dim;
                ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(c), "%s", e.kind.c_str());
                ImGui::TableNextColumn();
                if (e.bad)
                    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colour::rgba(255, 150, 140)), "%s", e.text.c_str());
                else
                    ImGui::TextUnformatted(e.text.c_str());
            }
        // Follow the newest unless the user scrolled up.
        if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 4) ImGui::SetScrollHereY(1.0f);
        ImGui::EndTable();
    }
    ImGui::PopFont();
    ImGui::EndChild();
}

}  // namespace seatmark::monitor
