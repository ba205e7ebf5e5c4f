#pragma once
// `seatmark push DB [URL...]`: a run database's step verdicts, per-step figures and session
// summaries sent to InfluxDB 1.x or a JSON-lines endpoint (push/push_run.h); with no URL, what the
// sinks a run pushed to (DB.push/) have not taken yet.
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::app {

void add_push_command(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::app
