#pragma once
// `seatmark merge OUT.db A.db B.db ...`: the host databases of one pool run -> one run database
// (store/merge.h has the rules).
#include <CLI/CLI.hpp>

#include <functional>

namespace seatmark::app {

void add_merge_command(CLI::App& app, std::function<int()>& run);

}  // namespace seatmark::app
