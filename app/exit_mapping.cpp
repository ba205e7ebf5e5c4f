#include "app/exit_mapping.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "client/vk_check.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"

namespace seatmark::app {

namespace {

// `seatmark monitor --db run.db` (as `seatmark run --db` takes it): the command takes its database
// as a positional argument, and CLI11 only says "--db" was not expected. Name the right form.
void hint_positional(const CLI::App& app, int argc, char** argv) {
    const CLI::App* cmd = &app;
    while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().front();
    const auto positionals = cmd->get_options([](const CLI::Option* o) { return o->get_positional(); });
    if (positionals.empty()) return;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0) continue;
        const std::string name = arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
        if (name.empty() || cmd->get_option_no_throw("--" + name)) continue;
        for (const CLI::Option* p : positionals) {
            if (name != p->get_name() && name != "db") continue;
            std::string path = cmd->get_name();
            for (const CLI::App* up = cmd->get_parent(); up && up->get_parent(); up = up->get_parent())
                path = up->get_name() + " " + path;
            std::fprintf(stderr, "seatmark: hint: %s takes its %s without a flag: seatmark %s %s\n", path.c_str(),
                         p->get_name().c_str(), path.c_str(), name == "db" ? "RUN.db" : p->get_name().c_str());
            return;
        }
    }
}

}  // namespace

int parse_and_run(CLI::App& app, int argc, char** argv, const std::function<int()>& run) {
    namespace ec = seatmark::exit_code;
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
        hint_positional(app, argc, argv);
        return ec::bad_input;
    }
    try {
        int rc = run ? run() : ec::ok;
        seatmark::check_stdout();  // `seatmark run --json > /dev/full` is an error, not exit 0
        return rc;
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

}  // namespace seatmark::app
