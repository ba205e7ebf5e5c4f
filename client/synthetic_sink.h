#pragma once
// --synthetic-fps / --synthetic-cpu-ms: frames with no device. Each frame spends a
// fixed CPU time on the calling thread (busy, on the thread's CPU clock, so a loaded
// host stretches the frame as it would a real one) and completes at once. With N
// sessions each spending C ms per frame on a host of K cores, the frame rate a session
// can reach is known in advance (about K / N / C per ms), so the true knee of a run is too.
#include <cstdint>
#include <functional>

#include "client/frame_sink.h"

namespace seatmark::client {

class SyntheticSink : public FrameSink {
public:
    explicit SyntheticSink(int64_t cpu_ns_per_frame, std::function<bool()> stop = {})
        : cpu_ns_(cpu_ns_per_frame), stop_(std::move(stop)) {}
    void on_done(std::function<void(const FrameDone&)> cb) override { done_ = std::move(cb); }
    void wait_ready() override {}
    Submitted submit(const FrameParams& params, uint64_t token) override;
    void drain() override {}

private:
    int64_t cpu_ns_;
    std::function<bool()> stop_;
    std::function<void(const FrameDone&)> done_;
};

// Spins until the calling thread has used `ns` of CPU time or stop() says so.
void spin_thread_cpu(int64_t ns, const std::function<bool()>& stop);

}  // namespace seatmark::client
