#include "client/session_cli.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "client/device_preflight.h"
#include "client/join_session.h"
#include "client/session.h"
#include "client/session_report.h"
#include "client/stop_signal.h"
#include "client/telemetry.h"
#include "client/vk_check.h"
#include "common/duration.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"
#include "workloads/profile.h"

namespace seatmark::client {

namespace {

// A seed is any 64-bit unsigned number, written in decimal; "-1" or a 20-digit number
// past 2^64 - 1 would wrap to another scene without a word.
uint64_t parse_seed(const std::string& text) {
    uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || p != end)
        throw InputError("--seed " + text + ": expected a whole number from 0 to 18446744073709551615");
    return v;
}

}  // namespace

void add_session_command(CLI::App& app, std::function<int()>& run) {
    configure_session_command(
        *app.add_subcommand("session", "Run one synthetic CAD user rendering with Vulkan, timing every frame"), run,
        "seatmark session");
}

void configure_session_command(CLI::App& command, std::function<int()>& run, const std::string& invoked_as) {
    auto opts = std::make_shared<SessionOptions>();
    auto duration = std::make_shared<std::string>();
    auto seed = std::make_shared<std::string>();
    auto no_software = std::make_shared<bool>(false);
    auto list = std::make_shared<bool>(false);
    auto preflight = std::make_shared<bool>(false);
    auto join_args = std::make_shared<JoinArgs>();
    auto retry = std::make_shared<std::string>("60s");
    auto* cmd = &command;
    cmd->add_option("--workload,-w", opts->workload, "Built-in profile name or a profile .toml file")
        ->capture_default_str();
    cmd->add_option("--duration,-d", *duration, "How long to run, e.g. 30s, 2m (default: the profile's)");
    // 0 is refused, not taken as "the profile's" (it used to fall back without a word).
    const CLI::Validator pixels(
        [](std::string& v) {
            unsigned n = 0;
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            bool ok = ec == std::errc() && p == v.data() + v.size() && n >= workloads::min_render_side && n <= workloads::max_render_side;
            return ok ? std::string() : "expected 16..32768 pixels, got " + v;
        },
        "16..32768");
    const CLI::Validator samples(
        [](std::string& v) {
            unsigned n = 0;
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            bool ok = ec == std::errc() && p == v.data() + v.size() && workloads::valid_msaa(n);
            return ok ? std::string() : "expected 1, 2, 4, 8, 16, 32 or 64, got " + v;
        },
        "1, 2, 4, 8, 16, 32 or 64");
    cmd->add_option("--width", opts->width, "Render width in pixels (default: the profile's)")->check(pixels);
    cmd->add_option("--height", opts->height, "Render height in pixels (default: the profile's)")->check(pixels);
    cmd->add_option("--msaa", opts->msaa, "Samples per pixel (default: the profile's)")->check(samples);
    cmd->add_option("--device", opts->device,
                    "Vulkan device index or part of its name (default: first discrete GPU, else integrated, else CPU)");
    cmd->add_option("--seed", *seed, "Scene seed, 0..18446744073709551615 (default: the profile's)");
    cmd->add_option("--model", opts->model,
                    "Draw this model instead of the profile's scene: a .smpack, or a glTF/OBJ/STL/STEP/IGES file "
                    "packed on first use into the pack cache ($SEATMARK_PACK_CACHE, else ~/.cache/seatmark/packs)");
    cmd->add_option("--out,-o", opts->out_csv, "Write one CSV row per frame to this file");
    cmd->add_option("--screenshot", opts->screenshot, "Write a PNG of a frame in the default mode (shaded with edges)");
    cmd->add_flag("--validate", opts->validate, "Enable the Khronos validation layer; any message fails the session");
    cmd->add_flag("--window", opts->window, "Present to a window (needs a display) instead of rendering headless");
    // An option whose value may be left out (a flag named "--watermark{16}" showed its braces in --help).
    cmd->add_option("--watermark", opts->watermark_cell,
                    "Paint each frame's sequence number as a block watermark in the top-left corner, "
                    "blocks of PX pixels (4..64; 16 when left out, which survives RemoteFX); read by `seatmark "
                    "launch` at the RDP endpoint")
        ->expected(0, 1)
        ->default_str("16")
        ->option_text("[=PX]")
        ->check(CLI::Range(4u, 64u));
    cmd->add_option("--reference-dir", opts->reference_dir,
                    "With --watermark: write one frame in --reference-every as it was rendered (gray PGM) to this "
                    "folder, for `seatmark launch --references` to compute SSIM against what arrived")
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--reference-every", opts->reference_every, "Sample one frame in N for --reference-dir (default 30)")
        ->check(CLI::Range(1u, 100000u));
    cmd->add_flag("--no-software", *no_software, "Fail (exit 6) when the chosen device is a software renderer");
    cmd->add_flag("--quiet,-q", opts->quiet, "Print no summary");
    cmd->add_flag("--list-workloads", *list, "List the built-in workload profiles and exit");
    cmd->add_flag("--preflight", *preflight,
                  "Print the Vulkan device these options would render on and its limits (JSON) and exit; "
                  "`seatmark run` asks this before starting any session");
    cmd->add_option("--connect", opts->connect,
                    "Stream frames, heartbeats and events to the orchestrator at this Unix socket (set by `seatmark run`)");
    cmd->add_option("--session-id", opts->session_id, "This session's number, named to the orchestrator (with --connect)");
    auto* join_opt = cmd->add_option("--join", join_args->address,
                    "Join a run over TCP at HOST:PORT (`seatmark run --accept`): wait to be activated, take the "
                    "profile and run settings from the orchestrator (a logon script in each user's desktop session)");
    cmd->add_option("--token-file", join_args->token_file, "With --join: file holding the run's token (never sent)");
    cmd->add_option("--host-name", join_args->host_name,
                    "With --join: the host name to report (default: this machine's); tests play several hosts with it");
    cmd->add_option("--retry-for", *retry,
                    "With --join: keep trying to reach the orchestrator this long, at start and after a dropped "
                    "connection, e.g. 60s, 0s")
        ->capture_default_str();
    join_opt->excludes("--connect")->excludes("--workload")->excludes("--session-id");
    cmd->add_option("--synthetic-fps", opts->synthetic_fps,
                    "Open no Vulkan device and render nothing: emit frames capped at this rate (1 to 10000 FPS) along "
                    "the profile's timeline (tests and orchestrator benchmarks)");
    cmd->add_option("--synthetic-cpu-ms", opts->synthetic_cpu_ms,
                    "Like --synthetic-fps, but each frame busy-spends this much CPU time (ms, on the session's own "
                    "thread clock): a session reaches at most 1000 / MS FPS, and N such sessions on K cores about "
                    "1000 K / (N x MS) each once N > K, so a run's true knee is known in advance. Combine with "
                    "--synthetic-fps to cap the rate");
    const std::string& me = invoked_as;
    cmd->footer(
        "Examples:\n"
        "  " + me + " --workload ci-tiny --duration 5s --out frames.csv --screenshot shot.png\n"
        "  " + me + " --workload designer-medium --device 0 --validate\n"
        "  " + me + " --workload ./my-profile.toml --msaa 8\n"
        "  " + me + " --synthetic-fps 60 --duration 10s --connect /tmp/run.sock --session-id 3\n"
        "  " + me + " --synthetic-cpu-ms 20 --synthetic-fps 30 --duration 1m   (a CPU-bound synthetic user)\n"
        "  " + me + " --join controller.example.com:7879 --token-file ~/.seatmark/token   (in a user's logon)\n"
        "Frame interval = present to present (vkQueuePresentKHR returned with --window, the frame's fence\n"
        "  headless), within an active stretch; --out also writes the begin-to-begin interval.\n" +
        exit_code::help_text());

    cmd->callback([&run, opts, duration, seed, no_software, list, preflight, join_args, retry] {
        run = [opts, duration, seed, no_software, list, preflight, join_args, retry]() -> int {
            if (*list) {
                for (const auto& n : workloads::builtin_profile_names()) {
                    auto p = workloads::load_profile(n);
                    std::printf("%-16s %s\n", n.c_str(), p.description.c_str());
                }
                return exit_code::ok;
            }
            if (!duration->empty()) {
                auto d = parse_duration(*duration);
                if (!d || *d <= 0)
                    throw InputError("--duration " + *duration + ": expected a positive duration such as 30s, 500ms or 2m");
                opts->duration_s = *d;
            }
            if (!seed->empty()) {
                opts->seed = parse_seed(*seed);
                opts->seed_set = true;
            }
            if (*no_software) opts->allow_software = false;
            if (!(opts->synthetic_fps == 0 ||
                  (opts->synthetic_fps >= workloads::min_rate_hz && opts->synthetic_fps <= 10000)))
                throw InputError("--synthetic-fps: expected 1 <= N <= 10000 frames per second");
            if (opts->synthetic_cpu_ms < 0 || std::isnan(opts->synthetic_cpu_ms))
                throw InputError("--synthetic-cpu-ms: expected 0 <= MS <= 60000 milliseconds of CPU per frame");
            if (*preflight) {
                std::printf("%s\n", preflight_json(*opts).c_str());
                return exit_code::ok;
            }
            // Outputs checked before the session starts, and never over its inputs.
            std::vector<std::string> inputs = {opts->workload, opts->model};
            if (!opts->out_csv.empty()) check_output_path(opts->out_csv, "--out", inputs);
            if (!opts->screenshot.empty()) check_output_path(opts->screenshot, "--screenshot", inputs);
            install_stop_handlers();  // SIGTERM/Ctrl-C end the session cleanly, with its BYE
            if (!join_args->address.empty()) {
                if (join_args->token_file.empty())
                    throw InputError("--join needs --token-file FILE: the file holding the run's token (the one given to "
                                     "`seatmark run --token-file`)");
                auto r = parse_duration(*retry);
                if (!r || *r < 0) throw InputError("--retry-for " + *retry + ": expected a duration such as 60s or 0s");
                join_args->retry_s = *r;
                return run_joined_session(*opts, *join_args);
            }
            if (!join_args->token_file.empty() || !join_args->host_name.empty())
                throw InputError("--token-file and --host-name go with --join HOST:PORT");
            std::unique_ptr<TelemetrySender> telemetry;
            if (!opts->connect.empty()) {
                telemetry = std::make_unique<TelemetrySender>();
                telemetry->connect(opts->connect);  // before any work: a bad path fails at once (exit 2)
            }
            return run_reporting(*opts, telemetry.get());
        };
    });
}

}  // namespace seatmark::client
