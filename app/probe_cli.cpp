#include "app/probe_cli.h"

#include <cstdio>
#include <memory>

#include "client/vk_device.h"
#include "client/vk_instance.h"
#include "common/exit_codes.h"

namespace seatmark::app {

namespace {

std::string timestamps(const nlohmann::json& d) {
    if (d["timestamp_valid_bits"].get<uint32_t>() == 0) return "none (gpu time will read -1)";
    char b[96];
    std::snprintf(b, sizeof b, "%u bits, %g ns per tick", d["timestamp_valid_bits"].get<uint32_t>(),
                  d["timestamp_period_ns"].get<double>());
    return b;
}

}  // namespace

ProbeResult run_probe(const orchestrator::GpuOptions& opts) {
    ProbeResult r;
    try {
        client::Instance instance(client::InstanceOptions{});
        for (const auto& d : client::list_devices(instance.handle()))
            r.vulkan_devices.push_back({{"index", d.index},
                                        {"name", d.name},
                                        {"type", d.type},
                                        {"vendor", d.vendor},
                                        {"driver_name", d.driver_name},
                                        {"driver_info", d.driver_info},
                                        {"driver_version", d.driver_version},
                                        {"api_version", d.api_version},
                                        {"software", d.software},
                                        {"timestamp_valid_bits", d.timestamp_valid_bits},
                                        {"timestamp_period_ns", d.timestamp_period_ns}});
        if (r.vulkan_devices.empty()) r.vulkan_error = "the Vulkan loader found no device that can render";
    } catch (const std::exception& e) {
        r.vulkan_error = e.what();
    }
    orchestrator::GpuBackends b = orchestrator::open_gpu_backends(opts);
    r.selected = b.hardware ? std::string(b.hardware->source()) : "software";
    r.telemetry = std::move(b.status);
    return r;
}

std::string format_probe(const ProbeResult& r) {
    std::string out = "Vulkan devices:\n";
    if (!r.vulkan_error.empty()) out += "  none: " + r.vulkan_error + "\n";
    for (const auto& d : r.vulkan_devices) {
        out += "  [" + std::to_string(d["index"].get<uint32_t>()) + "] " + d["name"].get<std::string>() + "\n";
        out += "      type " + d["type"].get<std::string>() +
               (d["software"].get<bool>() ? " (software renderer)" : "") + ", vendor " +
               d["vendor"].get<std::string>() + ", driver " + d["driver_name"].get<std::string>() + " " +
               d["driver_info"].get<std::string>() + ", Vulkan " + d["api_version"].get<std::string>() + "\n";
        out += "      timestamps: " + timestamps(d) + "\n";
    }
    out += "GPU telemetry backends:\n";
    for (const auto& s : r.telemetry) {
        char head[64];
        std::snprintf(head, sizeof head, "  %-9s %-12s ", s.name.c_str(), s.available ? "available" : "unavailable");
        out += head + s.detail + "\n";
        for (const auto& dev : s.devices) out += "      " + dev + "\n";
    }
    out += "A run here samples GPU sharing with: " + r.selected;
    if (r.selected == "software") out += " (process CPU time per session; no GPU device figures)";
    out += "\n";
    return out;
}

nlohmann::json probe_json(const ProbeResult& r) {
    nlohmann::json j;
    j["vulkan_devices"] = r.vulkan_devices;
    if (!r.vulkan_error.empty()) j["vulkan_error"] = r.vulkan_error;
    j["telemetry"] = nlohmann::json::array();
    for (const auto& s : r.telemetry)
        j["telemetry"].push_back({{"backend", s.name},
                                  {"available", s.available},
                                  {s.available ? "detail" : "reason", s.detail},
                                  {"devices", s.devices}});
    j["selected"] = r.selected;
    return j;
}

void add_probe_command(CLI::App& app, std::function<int()>& run) {
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("probe", "List Vulkan devices and which GPU telemetry backends work on this host");
    cmd->add_flag("--json", *json, "Print the result as JSON");
    cmd->footer(
        "Example:\n"
        "  seatmark probe\n"
        "  seatmark probe --json | jq '.telemetry[] | select(.available | not)'\n"
        "Backends: nvml (libnvidia-ml.so.1 via dlopen; SEATMARK_NVML_LIBRARY loads another file instead),\n"
        "  drm (/proc/PID/fdinfo usage stats of amdgpu, i915, xe), software (process CPU time, for sessions on\n"
        "  lavapipe). A run samples with the first that works. Nothing on the GPU is changed.\n"
        "What does not work is reported, not an error (exit 0).\n" + exit_code::help_text());
    cmd->callback([&run, json] {
        run = [json]() -> int {
            ProbeResult r = run_probe();
            if (*json)
                std::printf("%s\n", probe_json(r).dump(2).c_str());
            else
                std::printf("%s", format_probe(r).c_str());
            return exit_code::ok;
        };
    });
}

}  // namespace seatmark::app
