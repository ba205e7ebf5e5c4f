// Runs one session and tells its orchestrator how it ended (client/session_report.h).
#include "client/session_report.h"

#include <cstdio>

#include "client/telemetry.h"
#include "client/vk_check.h"
#include "common/errors.h"
#include "common/exit_codes.h"

namespace seatmark::client {

namespace {

// The exit code and message app/main.cpp gives the exception being handled, for BYE.
int exit_code_of_current_exception(std::string& msg) {
    try {
        throw;
    } catch (const InputError& e) {
        msg = e.what();
        return exit_code::bad_input;
    } catch (const ExitError& e) {
        msg = e.what();
        return e.code;
    } catch (const VulkanError& e) {
        msg = std::string("Vulkan error: ") + e.what();
        return e.exit_code();
    } catch (const std::exception& e) {
        msg = e.what();
        return exit_code::failure;
    } catch (...) {
        msg = "unknown error";
        return exit_code::failure;
    }
}

}  // namespace

int run_reporting(const SessionOptions& opts, TelemetrySender* telemetry) {
    try {
        SessionResult r = run_session(opts, {}, telemetry);
        if (!opts.out_csv.empty()) write_frames_csv(opts.out_csv, r.frames);
        if (!opts.quiet) std::fputs(format_summary(r).c_str(), stdout);
        if (!opts.screenshot.empty() && !opts.quiet) std::printf("screenshot %s\n", opts.screenshot.c_str());
        int code = exit_code::ok;
        if (opts.validate) {
            std::printf("validation %llu messages\n", static_cast<unsigned long long>(r.validation_messages));
            if (r.validation_messages > 0) code = exit_code::failure;
        }
        if (telemetry) {
            wire::Bye bye;
            bye.exit_code = code;
            wire::set_summary(bye, r.summary);
            bye.wall_s = r.wall_s;
            bye.cpu_s = r.cpu_s;
            bye.model_open_s = r.model_open_s;
            if (code != exit_code::ok)
                bye.message = std::to_string(r.validation_messages) + " validation messages";
            if (!telemetry->finish(bye)) telemetry->check();  // throws: connection lost
        }
        return code;
    } catch (...) {
        // Tell the orchestrator how the session ends, if it can still hear it.
        if (telemetry && telemetry->started() && !telemetry->lost()) {
            wire::Bye bye;
            bye.exit_code = exit_code_of_current_exception(bye.message);
            telemetry->event(bye.exit_code == exit_code::device_lost ? wire::EventKind::device_lost
                                                                       : wire::EventKind::error,
                             bye.message);
            telemetry->finish(bye);
        }
        throw;
    }
}

}  // namespace seatmark::client
