#include "monitor/monitor_cli.h"

#include <cstdlib>
#include <memory>

#include "common/duration.h"
#include "common/exit_codes.h"
#include "common/errors.h"
#include "monitor/monitor_app.h"

namespace seatmark::monitor {

void add_monitor_command(CLI::App& app, std::function<int()>& run) {
    struct Args {
        MonitorOptions o;
        std::string after = "2s", size = "1280x800";
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("monitor", "Watch a running test live (Dear ImGui), or browse a finished run's .db");
    cmd->add_option("source", a->o.target,
                    "http://HOST:PORT of a running seatmark run/demo (default: this host, ports 7878..7887), "
                    "or a run database (.db)");
    cmd->add_option("--token", a->o.token,
                    "Bearer token the run was started with (--token); default: $SEATMARK_TOKEN");
    cmd->add_option("--screenshot", a->o.screenshot, "Render offscreen, write this PNG and exit (no window needed)");
    cmd->add_option("--after", a->after, "With --screenshot: how long to watch first")->capture_default_str();
    cmd->add_option("--size", a->size, "Window or screenshot size WIDTHxHEIGHT")->capture_default_str();
    cmd->footer(
        "Examples:\n"
        "  seatmark demo &  seatmark monitor                 # watch the demo ramp\n"
        "  seatmark monitor http://10.0.0.5:7878 --token T   # a run started with --listen 0.0.0.0:7878 --token T\n"
        "  seatmark monitor host42.db                        # browse a finished run with a time slider\n"
        "  seatmark monitor run.db --screenshot shot.png     # render without a display (EGL) or under $DISPLAY\n"
        "Tiles: green meets its SLA, orange breaks it, blue starting, grey ended, red failed (crash, hang, ...).\n"
        "Plots: mouse wheel zooms, drag pans, double-click follows the data again. Click a tile for its frames.\n" +
        exit_code::help_text());
    cmd->callback([&run, a] {
        run = [a]() -> int {
            auto after = parse_duration(a->after);
            if (!after) throw InputError("--after " + a->after + ": expected a duration such as 2s or 500ms");
            a->o.after_s = *after;
            int w = 0, h = 0;
            if (std::sscanf(a->size.c_str(), "%dx%d", &w, &h) != 2 || w < 320 || h < 240 || w > 8192 || h > 8192)
                throw InputError("--size " + a->size + ": expected WIDTHxHEIGHT, e.g. 1280x800 (320x240 .. 8192x8192)");
            a->o.width = w;
            a->o.height = h;
            if (a->o.token.empty())
                if (const char* t = std::getenv("SEATMARK_TOKEN")) a->o.token = t;
            return run_monitor(a->o);
        };
    });
}

}  // namespace seatmark::monitor
