#pragma once
// `seatmark probe`: what a run on this host would get, before it starts: the
// Vulkan devices sessions can render on, and which GPU telemetry backends work
// here (NVML, DRM fdinfo, software) and, for each that does not, why.
#include <CLI/CLI.hpp>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/gpu_sampler.h"

namespace seatmark::app {

void add_probe_command(CLI::App& app, std::function<int()>& run);

// What the probe found; `vulkan_error` is set when no device list could be read.
struct ProbeResult {
    nlohmann::json vulkan_devices = nlohmann::json::array();
    std::string vulkan_error;
    std::vector<orchestrator::BackendStatus> telemetry;
    std::string selected;  // the backend a run here samples with: nvml, drm or software
};

ProbeResult run_probe(const orchestrator::GpuOptions& opts = {});
std::string format_probe(const ProbeResult& r);
nlohmann::json probe_json(const ProbeResult& r);

}  // namespace seatmark::app
