#include "app/exit_mapping.h"

#include <cstdio>
#include <exception>

#include "client/vk_check.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"

namespace seatmark::app {

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
