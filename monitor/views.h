#pragma once
// The monitor's panels (one file each); monitor_ui.cpp lays them out.
#include <string>

#include "monitor/monitor_ui.h"

namespace seatmark::monitor {

void draw_header(UiState& ui, const MonitorData& d);
void draw_time_slider(UiState& ui, const MonitorData& d, DataSource& src);
void draw_sessions(UiState& ui, const MonitorData& d, ImVec2 size);
void draw_session_plot(UiState& ui, const MonitorData& d, ImVec2 size);
void draw_run_plots(UiState& ui, const MonitorData& d, float width, float plot_height);
void draw_events(UiState& ui, const MonitorData& d, ImVec2 size);

// "1:05", "12:00:03"
std::string clock_text(double seconds);
// "512 MiB", "1.5 GiB"
std::string bytes_text(double bytes);
// Tile colour for a session's state and SLA.
ImU32 session_colour(const core::LiveSession& s);

}  // namespace seatmark::monitor
