#pragma once
// The step machine's clock and timer on a real event loop: CLOCK_MONOTONIC (common/clock.h)
// and an Asio steady_timer.
#include <utility>  // before Asio
#include <chrono>
#include <functional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/clock.h"
#include "orchestrator/step_seams.h"

namespace seatmark::orchestrator {

class MonotonicClock final : public Clock {
public:
    int64_t now_ns() const override { return seatmark::now_ns(); }
};

class AsioTimer final : public Timer {
public:
    explicit AsioTimer(boost::asio::io_context& io) : timer_(io) {}
    void start(int64_t delay_ns, std::function<void()> fire) override {
        timer_.expires_after(std::chrono::nanoseconds(delay_ns));  // aborts a pending wait
        timer_.async_wait([fire = std::move(fire)](boost::system::error_code ec) {
            if (!ec) fire();
        });
    }
    void cancel() override { timer_.cancel(); }

private:
    boost::asio::steady_timer timer_;
};

}  // namespace seatmark::orchestrator
