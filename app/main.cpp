// seatmark: one binary, one subcommand per job. Each library registers its own
// subcommand; this file only wires them together (app/exit_mapping.h maps errors
// to exit codes, common/exit_codes.h). `seatmark session` runs the lean
// seatmark-session executable beside this one, so the process a user measures by
// hand is the one `seatmark run` measures.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include "agent/agent.h"
#include "app/exit_mapping.h"
#include "common/exit_codes.h"
#include "common/self_exe.h"
#include "common/version.h"
#include "monitor/monitor_cli.h"
#include "app/export_cli.h"
#include "app/merge_cli.h"
#include "app/probe_cli.h"
#include "app/push_cli.h"
#include "import/pack_cli.h"
#include "orchestrator/run_cli.h"
#include "report/analysis.h"
#include "report/report_cli.h"
#include "report/words.h"
#include "report/write_report.h"
#include "stage/stage_cli.h"

namespace {

// Replaces this process by seatmark-session (or seatmark-launch) with the arguments after
// "session" (same pid, so whoever started `seatmark session` waits for and signals the session
// itself). Both are their own executables so that neither the measured session nor every other
// subcommand pays for the other's libraries (FreeRDP alone maps ~120 shared objects).
[[noreturn]] void exec_sibling(const char* name, const char* as, int argc, char** argv) {
    const std::string exe = seatmark::sibling_exe(name);
    std::string arg0 = as;
    std::vector<char*> args{arg0.data()};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    ::execv(exe.c_str(), args.data());
    std::fprintf(stderr, "seatmark: error: cannot run %s: %s; it is built and installed beside seatmark\n",
                 exe.c_str(), std::strerror(errno));
    std::exit(seatmark::exit_code::failure);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "session") == 0) exec_sibling("seatmark-session", "seatmark session", argc, argv);
    if (argc >= 2 && std::strcmp(argv[1], "launch") == 0) exec_sibling("seatmark-launch", "seatmark launch", argc, argv);

    CLI::App app{"seatmark: how many CAD users can this GPU host serve, at what experience"};
    app.set_version_flag("--version", seatmark::version_string);
    app.require_subcommand(1);
    app.footer("Run 'seatmark SUBCOMMAND --help' for its options and an example.\n" + seatmark::exit_code::help_text());
    std::function<int()> run;
    // Listed for --help; `seatmark session ...` never reaches the parser (exec_sibling above).
    app.add_subcommand("session", "Run one synthetic CAD user rendering with Vulkan, timing every frame")
        ->allow_extras();
    // `seatmark demo` ends with its report; the orchestrator cannot depend on report/, so it is handed in here.
    seatmark::orchestrator::add_run_commands(app, run, [](const std::string& db, const std::string& dir) {
        auto analysis = seatmark::report::analyze(db);
        seatmark::report::write_report(analysis, dir);
        auto h = seatmark::report::headline(analysis);
        return "max density " + h.density + " (" + h.sla + "); knee " + h.knee + "; run " + h.status;
    });
    seatmark::app::add_probe_command(app, run);
    seatmark::agent::add_agent_command(app, run);
    seatmark::app::add_merge_command(app, run);
    seatmark::app::add_export_command(app, run);
    seatmark::app::add_push_command(app, run);
    seatmark::report::add_report_commands(app, run);
    seatmark::monitor::add_monitor_command(app, run);
    seatmark::stage::add_stage_command(app, run);
    seatmark::import::add_pack_command(app, run);
    app.add_subcommand("launch", "Open real RDP sessions as test users and measure what arrives at the endpoint")
        ->allow_extras();
    return seatmark::app::parse_and_run(app, argc, argv, run);
}
