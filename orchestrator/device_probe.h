#pragma once
// Asks the session executable which device its sessions would render on (`--preflight`), in a
// child process with a deadline: the orchestrator links no Vulkan, and the answer is the one the
// sessions themselves would reach (same executable, loader, environment and --device).
#include <string>
#include <vector>

#include "core/preflight.h"

namespace seatmark::orchestrator {

// `args`: what the sessions would be given beyond their own (--device, the benchmarks' synthetic
// flags). Fills renders, device/device_error and hardware; a probe that cannot run, times out
// or answers nothing readable sets probe_note instead (the run then goes on unchecked).
core::PreflightFacts probe_devices(const std::string& exe, const std::vector<std::string>& args, double timeout_s);

}  // namespace seatmark::orchestrator
