#pragma once
// A verdict's figures as a stored row and back: the one list of what a `verdicts` row keeps of a
// core::StepVerdict. The span (host, step, repeat, times) and the count of sessions judged are
// the writer's to set: a host's row counts its members, a pool row the sum over its hosts.
#include "core/verdict.h"
#include "store/records.h"

namespace seatmark::store {

// Sets row's target, pass, failures, frames, dropped, every figure and the reasons from v.
void put_verdict(VerdictRow& row, const core::StepVerdict& v);

// The same fields back (the per-session figures are not stored: `sessions` stays empty).
core::StepVerdict verdict_of(const VerdictRow& row);

}  // namespace seatmark::store
