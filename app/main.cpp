// seatmark: one binary, one subcommand per job. Each library registers its own
// subcommand; this file only wires them together and maps errors to exit codes
// (common/exit_codes.h).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>

#include "client/session_cli.h"
#include "client/vk_check.h"
#include "app/probe_cli.h"
#include "orchestrator/run_cli.h"
#include "report/analysis.h"
#include "report/report_cli.h"
#include "report/words.h"
#include "report/write_report.h"
#include "monitor/monitor_cli.h"
#include "stage/stage_cli.h"
#include "import/pack_cli.h"
#include "common/errors.h"
#include "common/exit_codes.h"

int main(int argc, char** argv) {
    namespace ec = seatmark::exit_code;
    CLI::App app{"seatmark: how many CAD users can this GPU host serve, at what experience"};
    app.set_version_flag("--version", "seatmark 0.1.0");
    app.require_subcommand(1);
    app.footer("Run 'seatmark SUBCOMMAND --help' for its options and an example.");
    std::function<int()> run;
    seatmark::client::add_session_command(app, run);
    // `seatmark demo` ends with its report; the orchestrator cannot depend on report/, so it is handed in here.
    seatmark::orchestrator::add_run_commands(app, run, [](const std::string& db, const std::string& dir) {
        auto analysis = seatmark::report::analyze(db);
        seatmark::report::write_report(analysis, dir);
        auto h = seatmark::report::headline(analysis);
        return "max density " + h.density + " (" + h.sla + "); knee " + h.knee + "; run " + h.status;
    });
    seatmark::app::add_probe_command(app, run);
    seatmark::report::add_report_commands(app, run);
    seatmark::monitor::add_monitor_command(app, run);
    seatmark::stage::add_stage_command(app, run);
    seatmark::import::add_pack_command(app, run);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);  // prints the message and usage
        return ec::bad_input;
    }
    try {
        return run ? run() : ec::ok;
    } catch (const seatmark::InputError& e) {
        std::fprintf(stderr, "seatmark: error: %s\n", e.what());
        return ec::bad_input;
    } catch (const seatmark::ExitError& e) {
        std::fprintf(stderr, "seatmark: error: %s\n", e.what());
        return e.code;
    } catch (const seatmark::client::VulkanError& e) {
        std::fprintf(stderr, "seatmark: Vulkan error: %s\n", e.what());
        return e.exit_code();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "seatmark: error: %s\n", e.what());
        return ec::failure;
    }
}
