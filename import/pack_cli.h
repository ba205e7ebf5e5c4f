#pragma once
// `seatmark pack INPUT... --out FILE.smpack`
#include <functional>

#include <CLI/CLI.hpp>

namespace seatmark::import {

void add_pack_command(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::import
