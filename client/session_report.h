#pragma once
// One session run to its end with its telemetry: the summary and CSV as the options ask, BYE
// with the summary (or, when the session fails, the exit code and message it fails with).
// Shared by `seatmark session --connect` and `--join` (client/join_session.h).
#include "client/session.h"

namespace seatmark::client {

class TelemetrySender;

// Returns the exit code; rethrows what the session failed with after telling the orchestrator.
// `telemetry` may be null (a session run alone).
int run_reporting(const SessionOptions& opts, TelemetrySender* telemetry);

}  // namespace seatmark::client
