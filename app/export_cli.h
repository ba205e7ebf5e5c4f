#pragma once
// `seatmark export frames DB [--session N] [--csv]`: a run database's frames as text, one line
// per frame. Schema 4 stores frames in packed blocks (docs/store.md "Frame blocks"); this and the
// loadable extension libseatmark_sqlite.so are how people and scripts read them without seatmark.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::app {

void add_export_command(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::app
