#include "workloads/script.h"

#include <algorithm>
#include <cmath>

namespace seatmark::workloads {

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a small, well-mixed hash. Our own rather than
// <random>'s distributions, whose output differs between standard libraries.
uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Uniform in [-1, 1), a pure function of (seed, iteration, segment): a think pause
// lasts the same whatever the session's length or which segments came before.
double jitter_unit(uint64_t seed, uint32_t iteration, size_t segment) {
    uint64_t h = splitmix64(splitmix64(seed) ^ ((static_cast<uint64_t>(iteration) << 32) | (segment & 0xffffffffu)));
    double unit = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
    return 2 * unit - 1;
}

}  // namespace

TimelineCursor::TimelineCursor(const Script& script, double total_s, uint64_t seed)
    : script_(&script), total_s_(std::isfinite(total_s) && total_s > 0 ? total_s : 0), seed_(seed) {
    done_ = script.segments.empty();
}

bool TimelineCursor::next(ScheduledSegment& out) {
    const auto& segs = script_->segments;
    while (!done_) {
        if (index_ == segs.size()) {
            // A script of instants only would never advance; parse_profile forbids it, but
            // a hand-made Script must not hang the session.
            if (!script_->loop || t_ <= pass_start_) break;
            index_ = 0;
            ++iteration_;
            pass_start_ = t_;
        }
        if (t_ >= total_s_) break;
        const Segment& seg = segs[index_];
        double length = 0;
        if (!is_instant(seg.kind)) {
            length = std::max(0.0, seg.duration_s);
            if (seg.kind == SegmentKind::think && seg.jitter > 0)
                length *= 1 + seg.jitter * jitter_unit(seed_, iteration_, index_);
        }
        out.segment = index_;
        out.kind = seg.kind;
        out.iteration = iteration_;
        out.start_s = t_;
        out.end_s = std::min(t_ + length, total_s_);
        t_ += length;
        ++index_;
        return true;
    }
    done_ = true;
    return false;
}

Timeline::Timeline(const Script& script, double total_s, uint64_t seed)
    : total_s_(std::isfinite(total_s) && total_s > 0 ? total_s : 0) {
    TimelineCursor cursor(script, total_s, seed);
    for (ScheduledSegment s; cursor.next(s);) schedule_.push_back(s);
}

double Timeline::active_s() const {
    double sum = 0;
    for (const auto& s : schedule_)
        if (is_active(s.kind)) sum += s.end_s - s.start_s;
    return sum;
}

double Timeline::think_s() const {
    double sum = 0;
    for (const auto& s : schedule_)
        if (s.kind == SegmentKind::think) sum += s.end_s - s.start_s;
    return sum;
}

double Timeline::end_s() const { return schedule_.empty() ? 0 : schedule_.back().end_s; }

size_t Timeline::index_at(double t) const {
    if (!(t < total_s_)) return schedule_.size();
    // Ends never decrease along the schedule, so "still running or an instant at t"
    // is false for a prefix and true after it.
    auto it = std::partition_point(schedule_.begin(), schedule_.end(), [t](const ScheduledSegment& s) {
        const bool instant_at_t = s.start_s == s.end_s && s.start_s == t;
        return !(s.end_s > t || instant_at_t);
    });
    return static_cast<size_t>(it - schedule_.begin());
}

}  // namespace seatmark::workloads
