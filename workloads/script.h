#pragma once
// The interaction script laid out on a time line: which segment runs when.
// Pure arithmetic, so the session loop and the tests agree on it.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "workloads/profile.h"

namespace seatmark::workloads {

struct ScheduledSegment {
    size_t segment = 0;     // index into Script::segments
    SegmentKind kind = SegmentKind::orbit;
    uint32_t iteration = 0; // loop iteration
    double start_s = 0;     // from session start
    double end_s = 0;       // == start_s for instant segments; clipped to the session's end
};

// The schedule one segment at a time, in O(1) memory: a session of 2500000 h walks it
// as it plays instead of laying out billions of segments before its first frame.
// Timeline below is this cursor run to the end, so both follow one rule.
class TimelineCursor {
public:
    TimelineCursor(const Script& script, double total_s, uint64_t seed);
    // The next segment, false once the schedule is exhausted.
    bool next(ScheduledSegment& out);

private:
    const Script* script_;
    double total_s_;
    uint64_t seed_;
    double t_ = 0, pass_start_ = 0;
    uint32_t iteration_ = 0;
    size_t index_ = 0;
    bool done_ = false;
};

class Timeline {
public:
    // Lays the script out over [0, total_s): loops while Script::loop, think
    // jitter drawn deterministically from seed. Segments that would start at or
    // after total_s are dropped; the last one is clipped to total_s.
    Timeline(const Script& script, double total_s, uint64_t seed);

    const std::vector<ScheduledSegment>& schedule() const { return schedule_; }
    double total_s() const { return total_s_; }
    double active_s() const;  // sum of active segments' lengths (the FPS denominator)
    double think_s() const;
    // When the last scheduled segment ends: total_s() for a looping script, earlier for
    // a script with loop = false that is shorter than the session (the session then ends early).
    double end_s() const;

    // Index into schedule() of the segment running at time t (for instants at t,
    // the first one); schedule().size() when t >= total_s (or t >= end_s()).
    // A segment [start, end) runs at start, not at end: at a boundary the next one runs.
    size_t index_at(double t) const;

private:
    double total_s_;
    std::vector<ScheduledSegment> schedule_;
};

}  // namespace seatmark::workloads
