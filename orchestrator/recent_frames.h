#pragma once
// The frames a session keeps in the orchestrator's memory: only the newest, for the live view
// (the live projection's last seconds, the live API's /frames). Bounded by time and by count,
// so the orchestrator's memory does not grow with a window's or a step's length. A window's
// verdict does not read these: it reads the span's frames from the run's database, as the
// report does (Controller::judge).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "common/frame_record.h"

namespace seatmark::orchestrator {

class RecentFrames {
public:
    // Frames begun within this long before the newest one are kept: the live projection judges
    // the last 3 s, and a client polling /frames every few seconds with since=next misses none.
    static constexpr int64_t keep_ns = 10'000'000'000;
    // And never more than this many (a session far above 60 FPS), the live API's largest `max`.
    static constexpr size_t keep_max = 10'000;

    // Frames arrive in sequence order, so begin times only grow.
    void add(const FrameRecord& r) {
        frames_.push_back(r);
        while (frames_.size() > keep_max || frames_.front().t_begin_ns < r.t_begin_ns - keep_ns) frames_.pop_front();
    }
    void clear() { frames_.clear(); }
    size_t size() const { return frames_.size(); }
    bool empty() const { return frames_.empty(); }
    auto begin() const { return frames_.begin(); }
    auto end() const { return frames_.end(); }
    auto rbegin() const { return frames_.rbegin(); }
    auto rend() const { return frames_.rend(); }
    const FrameRecord& operator[](size_t i) const { return frames_[i]; }

private:
    std::deque<FrameRecord> frames_;  // oldest first
};

}  // namespace seatmark::orchestrator
