#pragma once
// `seatmark agent --join HOST:PORT --token-file FILE`: one per host in a join-mode run, on Linux
// and on Windows. It joins the run as an agent (common/join_protocol.h) and streams this host's
// figures: CPU per core, memory, load (Linux), GPU (NVML / DRM fdinfo / PDH / software,
// labelled) and per-process figures of the sessions the orchestrator says run here (WATCH,
// matched by pid). Sending is agent.cpp, sampling agent_sampler.h.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace seatmark::agent {

struct AgentOptions {
    std::string address, token_file, host_name;
    double interval_s = 1;  // one sample a second, as the orchestrator samples its own host
    double retry_s = 60;    // reaching the orchestrator at start and after a dropped connection
    bool quiet = false;
};

// Runs until the orchestrator stops it (STOP or the run ends), or a signal. Returns the exit code.
int run_agent(const AgentOptions& o);

// example: the --help example's command line (the Windows build shows seatmark.exe and a
// Windows path).
void add_agent_command(CLI::App& app, std::function<int()>& run,
                       const std::string& example = "seatmark agent --join controller.example.com:7879 --token-file /etc/seatmark/token");

}  // namespace seatmark::agent
