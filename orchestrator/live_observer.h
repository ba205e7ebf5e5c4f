#pragma once
// The run controller's interface to a live view of its run (the HTTP API in
// live_api.h): what it offers (LiveSource) and what it tells (LiveObserver).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/live_state.h"

namespace boost::asio {
class io_context;
}

namespace seatmark::orchestrator {


// What the run controller offers a live view; called on the run's event loop only.
class LiveSource {
public:
    virtual ~LiveSource() = default;
    virtual core::LiveState live_state() = 0;
    // Up to `max` of the session's most recent frames with seq >= since (oldest first).
    virtual std::vector<core::LiveFrame> live_frames(uint32_t session, uint64_t since, size_t max) = 0;
};

// A live view of a run (the HTTP API): started on the run's event loop, told
// about events as they happen, finished when the run has saved its database.
class LiveObserver {
public:
    virtual ~LiveObserver() = default;
    virtual void started(boost::asio::io_context& io, LiveSource& source) = 0;
    virtual void event(const core::RunEvent& e) = 0;
    virtual void finished() = 0;
};

}  // namespace seatmark::orchestrator
