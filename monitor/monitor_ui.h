#pragma once
// The monitor's screen: header, session grid, plots and event log, drawn from one
// MonitorData snapshot each frame. The caller owns the ImGui frame.
#include <optional>
#include <string>

#include "monitor/data_source.h"
#include "monitor/plot.h"
#include "monitor/theme.h"

namespace seatmark::monitor {

struct UiState {
    Fonts fonts;
    std::optional<uint32_t> selected;   // the session the user clicked
    std::string selected_host;          // and its host (a pool's hosts number sessions alike)
    std::optional<uint32_t> auto_pick;  // otherwise: the worst running one, kept while it runs
    XRange run_x, frames_x;             // time spans of the run plots (linked) and the session plot
    bool show_fps_min = true;
};

// One whole frame of the monitor (between ImGui::NewFrame and ImGui::Render).
void draw_monitor(UiState& ui, const MonitorData& d, DataSource& src);

// The session whose frames the session plot shows.
std::optional<uint32_t> shown_session(UiState& ui, const MonitorData& d);

}  // namespace seatmark::monitor
