#pragma once
// The frames a session keeps in the orchestrator's memory: only the newest, for the live view
// (the live projection's last seconds, the live API's /frames). Bounded by time and by count,
// so the orchestrator's memory does not grow with a window's or a step's length. A window's
// verdict does not read these: it reads the span's frames from the run's database, as the
// report does (Controller::judge).
#include <cstddef>
#include <cstdint>
#include <iterator>
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

    // Frames arrive in sequence order, so begin times only grow. Peer stamps are checked where
    // they arrive (core/peer_stamps.h); the cut-off saturates all the same, so no stamp can make
    // this loop run past the newest frame (a frame stamped near INT64_MIN once wrapped it into an
    // endless loop that hung the orchestrator).
    void add(const FrameRecord& r) {
        frames_.push_back(r);
        const int64_t cutoff = r.t_begin_ns < INT64_MIN + keep_ns ? INT64_MIN : r.t_begin_ns - keep_ns;
        while (frames_.size() - head_ > keep_max || frames_[head_].t_begin_ns < cutoff) ++head_;
        // The dropped front is reclaimed in one move once it is a quarter of the buffer (so the
        // buffer holds at most 4/3 of what is kept; about 2 frames moved per frame added): a
        // vector and a start index instead of a deque, whose 7-frame nodes cost a malloc and a
        // free for every 7 frames received (on_message's largest cost with 256 sessions).
        if (head_ >= 256 && head_ * 4 >= frames_.size()) {
            frames_.erase(frames_.begin(), frames_.begin() + static_cast<std::ptrdiff_t>(head_));
            head_ = 0;
        }
    }
    void clear() {
        frames_.clear();
        head_ = 0;
    }
    size_t size() const { return frames_.size() - head_; }
    bool empty() const { return size() == 0; }
    auto begin() const { return frames_.cbegin() + static_cast<std::ptrdiff_t>(head_); }
    auto end() const { return frames_.cend(); }
    auto rbegin() const { return frames_.crbegin(); }
    auto rend() const { return std::make_reverse_iterator(begin()); }
    const FrameRecord& operator[](size_t i) const { return frames_[head_ + i]; }

private:
    std::vector<FrameRecord> frames_;  // oldest first, from head_
    size_t head_ = 0;                  // frames before it were dropped
};

}  // namespace seatmark::orchestrator
