#include "orchestrator/run_push.h"

#include <cstdio>
#include <exception>

#include "common/errors.h"

namespace seatmark::orchestrator {

void add_run_push_options(CLI::App* cmd, push::PushRequest& request) {
    request.url_option = "--push";
    request.header_option = "--push-header";
    cmd->add_option("--push", request.urls,
                    "After the run, send its step verdicts, per-step figures and session summaries to URL (repeat for "
                    "more): influx://HOST[:8086]/DATABASE (InfluxDB 1.x) or http(s)://HOST[:PORT]/PATH (JSON lines); "
                    "see seatmark push --help")
        ->allow_extra_args(false);  // one URL per --push, so `--push URL PLAN` leaves the plan alone
    cmd->add_option("--push-header", request.headers, "With --push: add 'Name: value' to every request (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--push-header-file", request.header_file,
                    "With --push: headers from a file, one 'Name: value' per line (keeps a token off the command line)");
    cmd->add_option("--push-timeout", request.wait_s,
                    "With --push: seconds to keep trying each sink after the run; what is not taken stays pending for "
                    "`seatmark push DB`")
        ->capture_default_str()
        ->check(CLI::Range(0.1, 3600.0));
}

std::optional<push::PushSetup> run_push_setup(const push::PushRequest& request, bool timeout_given) {
    if (request.urls.empty()) {
        if (!request.headers.empty() || !request.header_file.empty() || timeout_given)
            throw InputError("--push-header, --push-header-file and --push-timeout go with --push URL; give the sink "
                             "(e.g. --push influx://HOST:8086/DATABASE) or leave them out");
        return std::nullopt;
    }
    return push::push_setup(request);
}

void push_after_run(const push::PushSetup& setup, const std::string& db_path) {
    std::fflush(stdout);  // the run's summary first
    try {
        const bool headers = !setup.options.headers.empty();
        for (const push::Delivery& d : push::push_database(db_path, setup))
            std::fprintf(stderr, "seatmark: push: %s\n", push::describe(d, db_path, headers).c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "seatmark: push: nothing sent: %s; send it later with `seatmark push %s`\n", e.what(),
                     db_path.c_str());
    }
}

}  // namespace seatmark::orchestrator
