#pragma once
// Per-frame bookkeeping of a session, apart from Vulkan so it can be tested and
// benchmarked alone: the frame log (filled at submit, completed at the fence)
// and the clock of scripted input events.
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "client/frame_sink.h"
#include "common/frame_record.h"

namespace seatmark::client {

// The frames of a session, filled at begin (begin, begin interval), given their cpu
// time once vkQueueSubmit returned and their present time (vkQueuePresentKHR returned,
// or the fence when `present_at_fence`), and completed by the renderer's watcher thread
// (gpu, latency). A frame is emitted once every part is in, strictly in sequence order,
// whichever thread finishes it; its present-to-present interval is set then.
class FrameLog {
public:
    explicit FrameLog(std::function<void(const FrameRecord&)> emit = {}, bool present_at_fence = true)
        : emit_(std::move(emit)), present_at_fence_(present_at_fence) {}

    uint64_t begin(FrameRecord r, int64_t input_ns) {
        std::lock_guard<std::mutex> lock(mu_);
        r.seq = frames_.size();
        frames_.push_back(r);
        input_ns_.push_back(input_ns);
        state_.push_back(0);
        return r.seq;
    }
    void set_cpu(uint64_t seq, int64_t cpu_ns) {
        std::lock_guard<std::mutex> lock(mu_);
        frames_[seq].cpu_ns = cpu_ns;
        state_[seq] |= has_cpu;
        flush();
    }
    void set_present(uint64_t seq, int64_t present_ns) {
        std::lock_guard<std::mutex> lock(mu_);
        frames_[seq].t_present_ns = present_ns;
        state_[seq] |= has_present;
        flush();
    }
    void complete(const FrameDone& d) {
        std::lock_guard<std::mutex> lock(mu_);
        auto& r = frames_[d.token];
        r.gpu_ns = d.gpu_ns;
        if (input_ns_[d.token] >= 0) r.latency_ns = d.fence_ns - input_ns_[d.token];
        state_[d.token] |= has_fence;
        if (present_at_fence_) {
            r.t_present_ns = d.fence_ns;
            state_[d.token] |= has_present;
        }
        flush();
    }
    // Every frame that began before the returned time has been emitted: the begin of the oldest
    // frame still in flight, or `now` when none is (HEARTBEAT's stamp, common/wire_protocol.h).
    // Called on the thread that begins frames, so none is between its begin time and begin().
    int64_t complete_through(int64_t now) const {
        std::lock_guard<std::mutex> lock(mu_);
        return next_emit_ < frames_.size() ? frames_[next_emit_].t_begin_ns : now;
    }
    uint64_t emitted() const {
        std::lock_guard<std::mutex> lock(mu_);
        return next_emit_;
    }
    std::vector<FrameRecord> take() {
        std::lock_guard<std::mutex> lock(mu_);
        return std::move(frames_);
    }

private:
    static constexpr uint8_t has_cpu = 1, has_fence = 2, has_present = 4, complete_ = 7;
    void flush() {
        while (next_emit_ < frames_.size() && state_[next_emit_] == complete_) {
            FrameRecord& r = frames_[next_emit_];
            // Present-to-present within a stretch: the first frame after a think pause has none.
            r.interval_ns = (r.flags & frame_flag_stretch_start) ? -1 : r.t_present_ns - prev_present_ns_;
            prev_present_ns_ = r.t_present_ns;
            if (emit_) emit_(r);
            ++next_emit_;
        }
    }
    mutable std::mutex mu_;
    std::function<void(const FrameRecord&)> emit_;
    bool present_at_fence_;
    int64_t prev_present_ns_ = 0;
    std::vector<FrameRecord> frames_;
    std::vector<int64_t> input_ns_;
    std::vector<uint8_t> state_;
    uint64_t next_emit_ = 0;
};

// Scripted input events of one segment: at its start, then every 1/rate while it is active.
struct InputClock {
    int64_t start_ns = 0, end_ns = 0, period_ns = 0;
    int64_t next_ns = 0;  // oldest event not yet shown by a frame
    // The oldest unshown event at or before t (consumed with all later ones up to t), or -1.
    int64_t take(int64_t t) {
        if (next_ns > t || next_ns >= end_ns) return -1;
        int64_t oldest = next_ns;
        if (period_ns <= 0) {
            next_ns = end_ns;
        } else {
            int64_t k = (t - start_ns) / period_ns + 1;
            next_ns = start_ns + k * period_ns;
        }
        return oldest;
    }
};

}  // namespace seatmark::client
