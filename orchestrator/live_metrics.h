#pragma once
// GET /metrics: the live state in the Prometheus text exposition format (0.0.4):
// seatmark_* gauges and counters with labels, documented in docs/live-api.md.
#include <cstdint>
#include <map>
#include <string>

#include "core/live_state.h"

namespace seatmark::orchestrator {

struct ApiCounters {
    std::map<std::string, uint64_t> events_by_kind;  // events reported by the run so far
    std::map<int, uint64_t> requests_by_code;         // HTTP responses the API sent, by status
};

std::string prometheus_text(const core::LiveState& s, const ApiCounters& c);

// A label value with \, " and newline escaped as the format requires.
std::string prometheus_escape(const std::string& v);

}  // namespace seatmark::orchestrator
