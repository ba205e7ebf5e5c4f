#pragma once
// `seatmark-session --preflight`: which Vulkan device a session with these options would render
// on, and its limits, as one JSON object on stdout. `seatmark run` asks this of the very
// executable it starts sessions with, in a child process (the orchestrator links no Vulkan),
// before the first session starts, and decides with core/preflight.h.
#include <string>

#include "client/session.h"

namespace seatmark::client {

// {"renders": false} for synthetic sessions (no device opened); else
// {"renders": true, "device": {...chosen...}, "devices": [{index, name, software}, ...]} or
// {"renders": true, "error": "..."} when no device fits --device (or none exists).
std::string preflight_json(const SessionOptions& opts);

}  // namespace seatmark::client
