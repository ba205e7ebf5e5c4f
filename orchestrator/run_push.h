#pragma once
// `seatmark run --push URL`: the options, checked before the run starts, and the push from the
// run's database after it ended (push/push_run.h does the work; `seatmark push` shares it).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "push/push_run.h"

namespace seatmark::orchestrator {

void add_run_push_options(CLI::App* cmd, push::PushRequest& request);

// No value without --push. Throws InputError (exit 2, nothing started) for a bad URL or header,
// an unreadable header file, or a header option without --push.
std::optional<push::PushSetup> run_push_setup(const push::PushRequest& request, bool timeout_given);

// Sends the run's records to every sink and says on stderr what each took. Never throws: a sink
// that is down or a database that cannot be read is said, and the run's exit code stays the
// run's (what was not sent stays pending for `seatmark push DB`).
void push_after_run(const push::PushSetup& setup, const std::string& db_path);

}  // namespace seatmark::orchestrator
