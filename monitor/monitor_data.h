#pragma once
// What the monitor shows, whichever source it comes from (the live API or a
// finished .db): the run's state at one moment, the run-wide history, step
// bands, events, and one session's frame intervals. Plain data.
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/live_json.h"
#include "core/live_state.h"

namespace seatmark::monitor {

enum class Link {
    connecting,  // no answer yet
    live,        // the API answers
    lost,        // it answered before and stopped (the orchestrator went away): retrying
    ended,       // the run ended; the last state is kept
    file,        // a finished .db
};

// One step's span on the time axis, with its verdict.
struct StepBand {
    uint32_t step = 0;       // 1-based
    uint32_t sessions = 0;
    double t0_s = 0, t1_s = 0;
    double window_t0_s = NAN, window_t1_s = NAN;  // measured window, when known
    int verdict = -1;        // -1 not judged (yet), 0 fail, 1 pass
};

// What an event says about the run, for its colour and the event log's counts: a step that
// failed is the ramp finding its limit, a session failure or a fault is something that broke.
enum class EventClass { info, step_pass, step_fail, session_failure, fault };

struct EventLine {
    uint64_t id = 0;
    double t_s = 0;          // seconds since the run started
    std::string kind;
    std::string text;        // one line for people
    bool bad = false;        // a failure: shown in red
    EventClass cls = EventClass::info;
};

// The event log's heading after "Events": the count and each kind of trouble by its own name,
// e.g. "22: 2 failed steps, 1 session failure" ("22" when nothing failed).
std::string events_summary(const std::vector<EventLine>& events);

// How the header shows "max density so far": neutral until a step is judged, good while every
// judged step passed, warn once the ramp found a failing step above a passing one, bad when
// steps were judged and none passed (0 is never shown as good).
enum class Tone { neutral, good, warn, bad };
Tone max_density_tone(const core::LiveState& s);

// One session's frames on the run's time axis.
struct FrameSeries {
    uint32_t session = 0;
    std::vector<double> t_s;          // frame begin, seconds since the run started, ascending
    std::vector<float> interval_ms;   // NaN for a stretch's first frame
};

struct MonitorData {
    core::LiveState state;                     // at t_now_s
    std::vector<core::LiveHistoryPoint> history;
    std::vector<StepBand> bands;
    std::vector<EventLine> events;
    std::shared_ptr<const FrameSeries> frames;         // the selected session's, when any
    Link link = Link::connecting;
    std::string source;        // URL or .db path
    std::string link_note;     // why not live, e.g. "connection refused; retrying"
    double t_now_s = 0;        // the moment `state` shows (live: elapsed; .db: the slider)
    double t_end_s = 0;        // .db: run length; live: elapsed
    double sla_p95_ms = NAN;   // the plan's default p95 bound, when known
    uint64_t version = 0;      // changes whenever anything above does
};

// Steps as bands on the time axis, from the history's step numbers and the verdicts so far.
std::vector<StepBand> bands_from_history(const std::vector<core::LiveHistoryPoint>& h,
                                         const std::vector<core::LiveStep>& verdicts, double t_end_s);

// An event as one line for people; `bad` for failures.
EventLine describe_event(const core::LiveEvent& e, int64_t run_started_unix_ns);

// Session states that are failures (crash, hang, device-lost, ...), as opposed to running or a clean end.
bool is_failure_state(const std::string& state);

// 0..1 of the run done, for the header's progress bar.
double progress(const core::LiveState& s);

}  // namespace seatmark::monitor
